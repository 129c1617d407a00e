// The soak's stack, offline: a fresh PostgreSQL database, the local chains at real timing under a seeded fault profile
// (Solana playing devnet and mainnet, anvil playing Base Sepolia and Base with 2 s blocks), an OpenAI-compatible fake
// provider, and N instances of the production server (`npm start`: bin/start/start.ts → bin/start/serve-next.ts, a production
// build) on one database. Shared by `npm run soak` and the multi-instance integration test.
import "server-only";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import pg from "pg";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startLocalnet, type FaultProfileInput, type Localnet } from "../localnet";
import { BASE_BLOCK_TIME_SEC, startLocalEvmChain, USDC_BY_EVM_CHAIN, type LocalEvmChain } from "../anvil";
import { openPostgres, type PrismaClient } from "../../server/db";
import { generateKeypair, type Ed25519Keypair } from "../../server/keys/parse-secret-key";
import { catchClientErrors } from "../../server/db/catch-connection-errors";
import { startRelayRecorder, type RelayRecorder } from "./record-relays";
import { isNasty, withNastyContent } from "./content-faults";
import { prng } from "./prng";
import {
  startFakeProvider,
  completionAnswer,
  failureAnswer,
  type FakeProvider,
} from "../../server/test/support/fake-provider";
import { devtoolsSetting, loadDevtoolsEnv, minimalChildEnv } from "../devtools-env";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
/**
 * The soak's own build folder, so it never clobbers `npm run dev`'s `.next` or the browser suite's `.next-e2e`; unless
 * SIGNET_SHARED_BUILD_DIR names the one build `npm test` makes first for the soak, the multi-instance test and the
 * browser suite together (one `next build` takes minutes on two cores).
 */
export const SOAK_DIST_DIR = devtoolsSetting("SIGNET_SHARED_BUILD_DIR") ?? ".next-soak";
/** The origin every instance names in signed prepaid requests: one service behind one load balancer. */
export const SOAK_BASE_URL = "http://signet.soak";
/** What a paid call costs in the soak (1,000 units): low enough for many calls, above the remote model's worst case. */
export const SOAK_PRICE_USDC = "0.001";
/** A prompt containing this marker makes the fake provider fail its first request, then answer: an unserved call. */
export const FAIL_ONCE_MARKER = "soak-fail-once";
/** The remote model the unserved calls use (the fake provider plays it). */
export const REMOTE_MODEL = "openai/gpt-4o-mini";
/** Lease of a payment whose process died: short, so a killed instance's calls are taken over within the run. */
export const SOAK_PAYMENT_LEASE_MS = 20_000;
/** Upstream limit: below the lease, as the config requires. */
const SOAK_UPSTREAM_TIMEOUT_MS = 10_000;
const FACILITATOR_LAMPORTS = 10_000_000_000n;
const FACILITATOR_WEI = 10n ** 18n;
const INSTANCE_START_TIMEOUT_MS = 120_000;

/**
 * The default fault profile (documented in `npm run soak -- --help`): what a flaky RPC does at a few percent. Solana:
 * dropped sends, 1–10 s late confirmations, 429 with Retry-After, 503, timeouts held 15 s, blockhashes expiring early.
 * Base: dropped and late transactions, the same HTTP faults, and reorgs of depth 1–2.
 */
function defaultFaultProfiles(seed: number): { solana: FaultProfileInput; base: FaultProfileInput } {
  const http = { rate429: 0.02, retryAfterSec: 1, rate503: 0.02, timeoutRate: 0.003, timeoutHoldMs: 15_000 };
  return {
    solana: {
      seed,
      dropSendRate: 0.03,
      confirmDelayMs: [1_000, 10_000],
      delaySendRate: 0.1,
      earlyExpiryRate: 0.03,
      ...http,
    },
    base: {
      seed: seed + 1,
      dropSendRate: 0.02,
      confirmDelayMs: [1_000, 10_000],
      delaySendRate: 0.1,
      reorgRate: 0.03,
      ...http,
    },
  };
}

interface SoakAgentKeys {
  solana: Ed25519Keypair[];
  evm: `0x${string}`[];
  /** What each agent gets on each of the four chains. */
  usdcUnits: bigint;
}

interface Instance {
  index: number;
  url: string;
  /** The last lines the instance printed (for a failure's diagnosis). */
  output(): string;
  /** Sends `signal` to `npm start`'s process (SIGTERM drains), or SIGKILLs its whole process group. */
  kill(signal: NodeJS.Signals): void;
  /** Resolves with the exit of `npm start`'s process. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

export interface SoakStack {
  db: { url: string; prisma: PrismaClient };
  devnet: Localnet;
  mainnet: Localnet;
  baseSepolia: LocalEvmChain;
  base: LocalEvmChain;
  provider: FakeProvider;
  /** What the instances sent to each Base chain. */
  relays: { baseSepolia: RelayRecorder; base: RelayRecorder };
  /** How many requests the fake provider has answered, by whether it failed them. */
  providerCalls: { ok: number; failed: number };
  /** How often the provider answered each paid remote call (its fail-once marker): more than once is a second service. */
  providerAnswers: Map<string, number>;
  /** How many of the provider's answers carried a piece of the content fault profile. */
  providerNasty: { answers: number };
  facilitator: { solana: string; evm: `0x${string}` };
  metricsToken: string;
  /** The instances' environment (without PORT). */
  env: NodeJS.ProcessEnv;
  instances: Instance[];
  /** Starts instance `index` (again) on its port and waits until it serves. */
  startInstance(index: number): Promise<Instance>;
  close(): Promise<void>;
}

export interface SoakStackOptions {
  instances: number;
  seed: number;
  /** The agents' keys: funded on every chain and allowed on mainnet (SERVICE_ALLOWED_AGENTS). */
  agents: SoakAgentKeys;
  faults?: boolean;
  /** The content fault profile (content-faults.ts): a share of the provider's answers carry NUL, lone surrogates… */
  contentFaults?: boolean;
  /** Extra instance environment (e.g. LOCAL_MODEL_STREAM_DELAY_MS). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

const newestMtime = (dir: string): number => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // Tests and the soak itself are not part of the bundle, nor the lint suite's probe folder, which eslint.config.test.ts
    // writes under server/ while it runs (beside the build's readers in npm test).
    if (["node_modules", "generated", "test", "soak", "__cycle_probe__"].includes(entry.name)) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
};

/**
 * Builds the production bundle into SOAK_DIST_DIR unless a build newer than every source file is already there (the
 * multi-instance test and the soak share it; a build takes minutes on two cores). Throws with Next's output on failure.
 */
export function ensureProductionBuild(log: (line: string) => void = () => {}): void {
  const buildId = path.join(REPO_ROOT, SOAK_DIST_DIR, "BUILD_ID");
  const sources = Math.max(
    ...["app", "server", "public", "prisma"].map((d) => newestMtime(path.join(REPO_ROOT, d))),
    ...["next.config.mjs", "package.json", "tsconfig.json"].map((f) => statSync(path.join(REPO_ROOT, f)).mtimeMs),
  );
  if (existsSync(buildId) && statSync(buildId).mtimeMs > sources)
    return log(`reusing the production build in ${SOAK_DIST_DIR}/`);
  log(`building the production bundle into ${SOAK_DIST_DIR}/ (next build)…`);
  const started = Date.now();
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const build = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: minimalChildEnv({
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      SIGNET_NEXT_DIST_DIR: SOAK_DIST_DIR,
      SIGNET_BUILD_TYPECHECK: "false",
    }),
  });
  if (build.status !== 0)
    throw new Error(`next build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
  log(`next build took ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = loadDevtoolsEnv().TEST_DATABASE_URL;
  const name = `signet_soak_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    catchClientErrors(client, () => undefined);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** Spawns `npm start` (bin/start/start.ts under tsx with the react-server condition) in its own process group. */
function spawnInstance(
  index: number,
  port: number,
  env: NodeJS.ProcessEnv,
): { instance: Instance; ready: Promise<void> } {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "bin/start/start.ts"],
    {
      cwd: REPO_ROOT,
      env: { ...env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  let tail: string[] = [];
  const keep = (c: Buffer) => {
    tail = [...tail, ...c.toString().split("\n").filter(Boolean)].slice(-80);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const url = `http://127.0.0.1:${port}`;
  const instance: Instance = {
    index,
    url,
    output: () => tail.join("\n"),
    kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGKILL takes the Next server with it (as a crashed host would); SIGTERM goes to `npm start`, which forwards it.
      if (signal === "SIGKILL") process.kill(-child.pid!, "SIGKILL");
      else child.kill(signal);
    },
    exited,
  };
  const ready = (async () => {
    const deadline = Date.now() + INSTANCE_START_TIMEOUT_MS;
    let exitedEarly = false;
    void exited.then(() => (exitedEarly = true));
    while (Date.now() < deadline && !exitedEarly) {
      const live = await fetch(`${url}/api/health?probe=live`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (live) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`instance ${index} did not start on ${url}:\n${tail.join("\n")}`);
  })();
  return { instance, ready };
}

/** Starts the whole stack; `close()` stops everything and drops the database. */
export async function startSoakStack(opts: SoakStackOptions): Promise<SoakStack> {
  const log = opts.log ?? (() => {});
  ensureProductionBuild(log);
  const profiles = opts.faults === false ? null : defaultFaultProfiles(opts.seed);
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const database = await createDatabase();
    closers.push(() => database.drop());
    const timing = { timing: "real" as const, faults: profiles?.solana ?? null };
    const devnet = await startLocalnet({ profile: "devnet", port: 0, dataDir: null, ...timing });
    closers.push(() => devnet.close());
    const mainnet = await startLocalnet({
      profile: "mainnet",
      port: 0,
      dataDir: null,
      ...timing,
      faults: profiles ? { ...profiles.solana, seed: opts.seed + 2 } : null,
    });
    closers.push(() => mainnet.close());
    // Base: the agents and the gas payer are funded on a fault-free automining anvil (a reorg may drop a mint, and 2 s
    // blocks would make funding take minutes), which is then started again from its state file with the fault profile
    // and a block every BASE_BLOCK_TIME_SEC.
    const evmKey = generatePrivateKey();
    const evmAddress = privateKeyToAccount(evmKey).address;
    const chainDir = mkdtempSync(path.join(tmpdir(), "signet-soak-chains-"));
    const evm = async (chainId: 84532 | 8453, seedOffset: number) => {
      const usdc = USDC_BY_EVM_CHAIN[chainId]!;
      const token = { chainId, usdc: usdc.address, name: usdc.name, version: usdc.version };
      const stateFile = path.join(chainDir, `anvil-${chainId}.json`);
      const setup = await startLocalEvmChain({ ...token, stateFile });
      await setup.fund(evmAddress, { wei: FACILITATOR_WEI });
      for (const agent of opts.agents.evm) await setup.fund(agent, { usdcUnits: opts.agents.usdcUnits });
      await setup.close();
      return startLocalEvmChain({
        ...token,
        stateFile,
        blockTimeSec: BASE_BLOCK_TIME_SEC,
        faults: profiles ? { ...profiles.base, seed: opts.seed + seedOffset } : null,
      });
    };
    const baseSepolia = await evm(84532, 3);
    closers.push(() => baseSepolia.close());
    const base = await evm(8453, 4);
    closers.push(() => base.close());
    // The instances reach each Base chain through a recorder of the transactions they relay.
    const relays = { baseSepolia: await startRelayRecorder(baseSepolia.url), base: await startRelayRecorder(base.url) };
    closers.push(
      () => relays.baseSepolia.close(),
      () => relays.base.close(),
    );
    for (const chain of [devnet, mainnet])
      for (const agent of opts.agents.solana)
        await chain.fundAccount(agent.publicKeyBase58, { usdcUnits: opts.agents.usdcUnits });
    log(
      `chains: devnet ${devnet.url}, mainnet ${mainnet.url}, Base Sepolia ${baseSepolia.url}, Base ${base.url}${profiles ? " (faults on)" : ""}`,
    );

    const providerCalls = { ok: 0, failed: 0 };
    const providerAnswers = new Map<string, number>();
    const providerNasty = { answers: 0 };
    const failedOnce = new Set<string>();
    const contentRoll = prng(opts.seed ^ 0x5eed);
    const provider = await startFakeProvider(({ raw, body }) => {
      const marker = new RegExp(`${FAIL_ONCE_MARKER} [\\w-]+`).exec(raw)?.[0];
      if (marker && !failedOnce.has(marker)) {
        failedOnce.add(marker);
        providerCalls.failed++;
        return failureAnswer;
      }
      providerCalls.ok++;
      if (marker) providerAnswers.set(marker, (providerAnswers.get(marker) ?? 0) + 1);
      const text = opts.contentFaults
        ? withNastyContent("remote answer from the soak's provider", contentRoll())
        : "remote answer from the soak's provider";
      if (isNasty(text)) providerNasty.answers++;
      return completionAnswer(body.model, text, { prompt_tokens: 12, completion_tokens: 6, cost: 0.00002 });
    });
    closers.push(() => provider.close());

    const facilitatorKey = generateKeypair();
    for (const chain of [devnet, mainnet])
      await chain.fundAccount(facilitatorKey.publicKeyBase58, { lamports: FACILITATOR_LAMPORTS, usdcUnits: 0n });
    const metricsToken = `soak-metrics-${randomBytes(12).toString("hex")}`;
    const testKey = () => bs58.encode(generateKeypair().seed);
    const allowed = [...opts.agents.solana.map((k) => k.publicKeyBase58), ...opts.agents.evm];
    const env: NodeJS.ProcessEnv = minimalChildEnv({
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      SIGNET_NEXT_DIST_DIR: SOAK_DIST_DIR,
      SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-soak-")),
      LOG_LEVEL: "warn",
      DATABASE_URL: database.url,
      SERVICE_BASE_URL: SOAK_BASE_URL,
      TRUSTED_PROXY_HOPS: "0",
      METRICS_TOKEN: metricsToken,
      SERVICE_OPERATOR_SECRET_KEY: testKey(),
      VERIFIER_SECRET_KEY: testKey(),
      LOG_SECRET_KEY: testKey(),
      FACILITATOR_SECRET_KEY: bs58.encode(facilitatorKey.seed),
      FACILITATOR_EVM_SECRET_KEY: evmKey,
      SESSION_SECRET: randomBytes(32).toString("hex"),
      IP_HASH_SALT: randomBytes(16).toString("hex"),
      // Production starts only with an operator listed; nobody signs in during a soak.
      SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
      RPC_URL_SOLANA_DEVNET: devnet.url,
      RPC_URL_SOLANA_MAINNET: mainnet.url,
      RPC_URL_BASE_SEPOLIA: relays.baseSepolia.url,
      RPC_URL_BASE: relays.base.url,
      SERVICE_MAINNET_ENABLED: "true",
      SERVICE_MAINNET_DEPOSIT_ADDRESS: facilitatorKey.publicKeyBase58,
      SERVICE_ALLOWED_AGENTS: allowed.join(","),
      X402_FLAT_PRICE_USDC: SOAK_PRICE_USDC,
      UPSTREAM_API_KEY: "soak-provider-key",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_PROVIDER_NAME: "openrouter",
      UPSTREAM_TIMEOUT_MS: String(SOAK_UPSTREAM_TIMEOUT_MS),
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      PAYMENT_LEASE_MS: String(SOAK_PAYMENT_LEASE_MS),
      // The prepaid keys that agents share make many calls a minute each; the limit is not what the soak measures.
      PREPAID_RATE_LIMIT_PER_MINUTE: "1000000",
      // Every soak agent calls from this machine's one address.
      PREPAID_IP_RATE_LIMIT_PER_MINUTE: "1000000",
      LOCAL_MODEL_STREAM_DELAY_MS: "5",
      SHUTDOWN_GRACE_MS: "20000",
      ...opts.env,
    });
    const ports = await Promise.all(Array.from({ length: opts.instances }, () => freePort()));
    const instances: Instance[] = [];
    const startInstance = async (index: number): Promise<Instance> => {
      const { instance, ready } = spawnInstance(index, ports[index]!, env);
      instances[index] = instance;
      closers.push(async () => {
        instance.kill("SIGKILL");
        await instance.exited;
      });
      await ready;
      return instance;
    };
    // All at once on a fresh database: the instances race to apply the migrations, as a rolling deploy's would.
    await Promise.all(ports.map((_, i) => startInstance(i)));
    log(`${opts.instances} instance(s) serving: ${instances.map((i) => i.url).join(", ")}`);
    const db = await openPostgres(database.url, 4);
    closers.push(() => db.close());
    return {
      db: { url: database.url, prisma: db.prisma },
      devnet,
      mainnet,
      baseSepolia,
      base,
      provider,
      relays,
      providerCalls,
      providerAnswers,
      providerNasty,
      facilitator: { solana: facilitatorKey.publicKeyBase58, evm: evmAddress },
      metricsToken,
      env,
      instances,
      startInstance,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
