// A production install serves: the repository's committed files and the build (Next's output and the generated
// Prisma client) copied to an empty folder, installed with `npm install --omit=dev` from the lockfile, started with
// `npm start` in production against a local chain this (full) install runs, then one paid call: answered, with a
// receipt whose five checks pass. Nothing a dev dependency holds (the local chains, vitest, tsc) is there to lean on.
// Minutes of install: it runs with SIGNET_PRODUCTION_INSTALL=true; `npm test` runs production-dependencies.test.ts.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import bs58 from "bs58";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minimalChildEnv } from "../../../devtools/devtools-env";
import { startLocalnet, type Localnet } from "../../../devtools/localnet";
import { ensureProductionBuild, freePort, SOAK_DIST_DIR } from "../../../devtools/soak/soak-stack";
import { createPayingFetch } from "../../agent/paying-fetch";
import { generateKeypair } from "../../keys/parse-secret-key";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const BASE = "http://signet.production-install";
/** What the full install generates and the build writes: shipped beside the committed files, as a deploy would. */
const BUILT = [
  { from: SOAK_DIST_DIR, to: ".next" },
  { from: "server/generated", to: "server/generated" },
];
/** Dev dependencies a production install must leave out (the local chains among them). */
const DEV_ONLY = ["litesvm", "@foundry-rs/anvil", "vitest", "typescript", "prisma", "eslint"];
const START_TIMEOUT_MS = 120_000;

let dir: string;
let install: { status: number | null; output: string; seconds: number; lockfileUnchanged: boolean };
let devnet: Localnet;
let tdb: TestDatabase;
let server: ChildProcess | undefined;
let output = "";
let url: string;
const operator = generateKeypair();
const facilitator = generateKeypair();
const agent = generateKeypair();

beforeAll(async () => {
  ensureProductionBuild((line) => console.log(`production-install: ${line}`));
  dir = mkdtempSync(path.join(tmpdir(), "signet-production-install-"));
  // The committed files, and any new one not ignored yet (none on a clean clone): the tree the build was made from.
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const files = listed.stdout.split("\0").filter(Boolean);
  for (const file of files) {
    if (!existsSync(path.join(ROOT, file))) continue;
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(dir, file));
  }
  for (const { from, to } of BUILT) {
    cpSync(path.join(ROOT, from), path.join(dir, to), {
      recursive: true,
      filter: (src) => path.basename(src) !== "cache" || path.dirname(src) !== path.join(ROOT, from),
    });
  }
  const lockfile = readFileSync(path.join(dir, "package-lock.json"), "utf8");
  const started = performance.now();
  const npm = spawnSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: dir,
    encoding: "utf8",
    env: minimalChildEnv(),
  });
  install = {
    status: npm.status,
    output: `${npm.stdout}\n${npm.stderr}`,
    seconds: (performance.now() - started) / 1000,
    lockfileUnchanged: readFileSync(path.join(dir, "package-lock.json"), "utf8") === lockfile,
  };
  console.log(`production-install: npm install --omit=dev took ${install.seconds.toFixed(1)} s`);
  if (install.status !== 0) return;

  devnet = await startLocalnet({ profile: "devnet", port: 0, dataDir: null });
  await devnet.fundAccount(facilitator.publicKeyBase58, { lamports: 10_000_000_000n, usdcUnits: 0n });
  await devnet.fundAccount(agent.publicKeyBase58, { usdcUnits: 1_000_000n });
  tdb = await createTestDatabase();
  const key = () => bs58.encode(generateKeypair().seed);
  const port = await freePort();
  server = spawn("npm", ["start"], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: minimalChildEnv({
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
      LOG_LEVEL: "warn",
      DATABASE_URL: tdb.url,
      SERVICE_BASE_URL: BASE,
      TRUSTED_PROXY_HOPS: "0",
      METRICS_TOKEN: randomBytes(16).toString("hex"),
      SESSION_SECRET: randomBytes(32).toString("hex"),
      IP_HASH_SALT: randomBytes(16).toString("hex"),
      SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
      SERVICE_OPERATOR_SECRET_KEY: bs58.encode(operator.seed),
      VERIFIER_SECRET_KEY: key(),
      LOG_SECRET_KEY: key(),
      FACILITATOR_SECRET_KEY: bs58.encode(facilitator.seed),
      FACILITATOR_EVM_SECRET_KEY: generatePrivateKey(),
      RPC_URL_SOLANA_DEVNET: devnet.url,
    }),
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not serve within ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("signet: serving on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    server!.stdout!.on("data", read);
    server!.stderr!.on("data", read);
    server!.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code ?? signal}) before serving:\n${output}`));
    });
  });
  await ready;
  url = `http://127.0.0.1:${port}`;
}, 900_000);

afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null)
    process.kill(-server.pid, "SIGKILL");
  await devnet?.close();
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a production install (npm install --omit=dev) of the built app", () => {
  it("installs exactly the lockfile, without the dev dependencies", () => {
    expect(install.status, install.output).toBe(0);
    expect(install.lockfileUnchanged).toBe(true);
    expect(existsSync(path.join(dir, "node_modules", "next", "package.json"))).toBe(true);
    expect(DEV_ONLY.filter((pkg) => existsSync(path.join(dir, "node_modules", pkg)))).toEqual([]);
  });

  it("serves a paid call under npm start, with a receipt whose every check passes", async () => {
    const signer = await createKeyPairSignerFromBytes(new Uint8Array([...agent.seed, ...agent.publicKey]));
    const toServer: typeof fetch = (input, init) => {
      const req = new Request(input, init);
      return fetch(new Request(`${url}${new URL(req.url).pathname}`, req));
    };
    const pay = createPayingFetch(signer, { [devnet.caip2]: devnet.url }, toServer);
    const messages = [{ role: "user", content: "hello from a production install" }];
    const res = await pay(`${BASE}/api/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", network: "devnet", messages }),
    });
    const body: unknown = await res.json();
    expect(res.status, `${JSON.stringify(body)}\n${output}`).toBe(200);
    expect(res.headers.get("payment-response")).toBeTruthy();
    const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error(`no receipt on the paid answer:\n${output}`);
    expect(parsed.receipt).toMatchObject({
      agent_pubkey: agent.publicKeyBase58,
      payment: { scheme: "x402", network: devnet.caip2 },
    });
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: messages,
      response: body,
      operatorKey: operator.publicKeyBase58,
      rpc: devnet.url,
    });
    expect(verdict.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
  }, 120_000);
});
