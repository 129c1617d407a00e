// `signet operator login-link` (a child process, as operators run it): without --key it signs with the dev sign-in
// key, and only for a service on this machine; for any other it refuses with one line saying to pass --key. Every link
// it prints comes with what the service answers a key it does not list: 403 forbidden, as redeeming such a link shows.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbClient } from "../../db";
import { loadConfig } from "../../env";
import { AppError, toErrorBody } from "../../errors";
import { generateKeypair, parseSecretKey } from "../../keys/parse-secret-key";
import { devOperatorSignInKey } from "../../operator-auth/dev-operator";
import { createLogger } from "../../log";
import { redeemLoginLink } from "../../operator-auth/sign-in";
import { systemClock } from "../../clock";
import { runSignet, type CliRun } from "../support/signet-cli";

/** Where the errors are logged: nowhere. */
const QUIET_LOG = createLogger("silent");

const scratch = mkdtempSync(path.join(tmpdir(), "signet-login-link-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const dataDir = path.join(scratch, "data");
const keyFile = path.join(scratch, "operator.json");

/** Runs the CLI with no endpoint variable of its own: each test names the service with --endpoint. */
const signet = (args: string[]): Promise<CliRun> =>
  runSignet(args, dataDir, undefined, { SIGNET_ENDPOINT: undefined, SERVICE_BASE_URL: undefined, PORT: undefined });

beforeAll(async () => {
  // The dev sign-in key `npm run dev` makes in its data dir, and an operator's own key file.
  devOperatorSignInKey({ isProduction: false, dataDir });
  expect((await signet(["keygen", "--out", keyFile])).code).toBe(0);
});

describe("signet operator login-link without --key", () => {
  it.each([
    ["https://signet.example"],
    ["http://10.0.0.5:3000"],
    ["http://app.localhost:3000"],
    ["http://localhost.example.com"],
    ["http://127.0.0.1.nip.io:3000"],
  ])("refuses %s, not on this machine, with one line saying to pass --key (exit 2, no link)", async (endpoint) => {
    const r = await signet(["operator", "login-link", "--endpoint", endpoint]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `signet: ${endpoint} is not on this machine: pass --key FILE, an operator key listed in that service's SERVICE_OPERATOR_PUBKEYS (the dev sign-in key signs for a local service only)\n`,
    );
  });

  it.each([["http://localhost:3000"], ["http://127.0.0.1:3000"], ["http://[::1]:3000"]])(
    "signs %s, on this machine, with the dev sign-in key",
    async (endpoint) => {
      const r = await signet(["operator", "login-link", "--endpoint", endpoint]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^${endpoint.replace(/[[\]]/g, "\\$&")}/api/operator/login-link\\?m=`));
      const dev = devOperatorSignInKey({ isProduction: false, dataDir })!;
      expect(r.stderr).toBe(
        `signet: the link signs in as ${dev.publicKeyBase58}: the service must list it in SERVICE_OPERATOR_PUBKEYS (a service outside production also lets in its own dev sign-in key); otherwise opening it answers 403 forbidden: this key is not an operator of this service\n`,
      );
    },
  );
});

describe("signet operator login-link --key", () => {
  it("signs for a remote service, and says what it answers a key it does not list, as the service does", async () => {
    const r = await signet(["operator", "login-link", "--key", keyFile, "--endpoint", "https://signet.example"]);
    expect(r.code, r.stderr).toBe(0);
    const key = parseSecretKey(readFileSync(keyFile, "utf8"));
    expect(r.stderr).toBe(
      `signet: the link signs in as ${key.publicKeyBase58}: the service must list it in SERVICE_OPERATOR_PUBKEYS; otherwise opening it answers 403 forbidden: this key is not an operator of this service\n`,
    );
    // What a production service that lists another key answers this very link (it refuses before any database work).
    const link = new URL(r.stdout.trim());
    const message = Buffer.from(link.searchParams.get("m")!, "base64url").toString("utf8");
    const cfg = loadConfig({
      NODE_ENV: "production",
      SERVICE_BASE_URL: "https://signet.example",
      SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
    });
    const db = new Proxy(
      {},
      {
        get: () => {
          throw new Error("the database must not be reached");
        },
      },
    ) as DbClient;
    const refused = await redeemLoginLink(db, cfg, message, link.searchParams.get("s")!, "https://signet.example", {
      clock: systemClock,
      log: createLogger("silent"),
    }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "forbidden", message: "this key is not an operator of this service" });
    expect(toErrorBody(refused, QUIET_LOG).status).toBe(403);
  });

  it("rejects malformed input: a key file that is not a key, with one line", async () => {
    const r = await signet([
      "operator",
      "login-link",
      "--key",
      path.join(scratch, "missing.json"),
      "--endpoint",
      "https://signet.example",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`signet: cannot read the operator key ${path.join(scratch, "missing.json")}\n`);
  });
});
