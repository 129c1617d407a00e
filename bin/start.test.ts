// `npm start` is production, always, and refuses to serve until its keys and the proxy set-up are stated.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { minimalChildEnv } from "../devtools/devtools-env";
import { generateKeypair } from "../server/keys/parse-secret-key";

const root = path.resolve(import.meta.dirname, "..");
const key = () => bs58.encode(generateKeypair().seed);

/** Runs bin/start.ts as `npm start` does; kills it if it is still running after `ms` (it started serving). */
function start(env: NodeJS.ProcessEnv, ms = 60_000): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), "--conditions=react-server", "bin/start.ts"], { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let killed = false;
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, killed });
    });
  });
}

describe("bin/start.ts in production", () => {
  /** What production needs, but for the proxy set-up, the metrics token and the log key, which each test adds or not. */
  const productionEnv = (): NodeJS.ProcessEnv => ({
    ...minimalChildEnv(),
    NODE_ENV: "production",
    PORT: "3299",
    SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-start-")),
    DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none",
    SERVICE_BASE_URL: "http://localhost:3299",
    SERVICE_OPERATOR_SECRET_KEY: key(),
    VERIFIER_SECRET_KEY: key(),
    FACILITATOR_SECRET_KEY: key(),
    SOLANA_DEVNET_RPC_URL: "http://127.0.0.1:1",
    SESSION_SECRET: "s".repeat(64),
    IP_HASH_SALT: "salt".repeat(8),
    LOG_LEVEL: "silent",
  });

  it("exits with one line naming TRUSTED_PROXY_HOPS when it is not set", async () => {
    // Everything else production needs is here, so the missing proxy set-up is the only reason to refuse.
    const result = await start({ ...productionEnv(), LOG_SECRET_KEY: key() });
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^signet: refusing to start: .*TRUSTED_PROXY_HOPS/);
  }, 90_000);

  it("exits with one line naming LOG_SECRET_KEY when the receipt log has no key", async () => {
    const env: NodeJS.ProcessEnv = { ...productionEnv(), TRUSTED_PROXY_HOPS: "0", METRICS_TOKEN: "m".repeat(32) };
    const result = await start(env);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe("signet: refusing to start: LOG_SECRET_KEY is required in production");
  }, 90_000);

  it("exits with one line naming both variables when two roles share a key", async () => {
    // The log key and the fee payer are loaded by different modules, and neither compares itself with the other.
    const shared = generateKeypair();
    const env: NodeJS.ProcessEnv = { ...productionEnv(), TRUSTED_PROXY_HOPS: "0", METRICS_TOKEN: "m".repeat(32), LOG_SECRET_KEY: bs58.encode(shared.seed), FACILITATOR_SECRET_KEY: bs58.encode(shared.seed) };
    const result = await start(env);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`signet: refusing to start: FACILITATOR_SECRET_KEY must differ from LOG_SECRET_KEY: both are the key ${shared.publicKeyBase58}; each service role needs a key of its own`);
  }, 90_000);
});


/** Runs `npm start` with `env` (nothing inherited but PATH and HOME); resolves with its exit code and stderr. */
function npmStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["start", "--silent"], {
      cwd: root,
      env: minimalChildEnv(env),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // A start that got past the config check would serve forever: stop it, the test has failed either way.
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("npm start", () => {
  it("is production even without NODE_ENV: with no keys configured it refuses to start and writes no dev keys", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-start-"));
    const { code, stderr } = await npmStart({ SIGNET_DATA_DIR: dataDir, PORT: "39517", SERVICE_BASE_URL: "https://signet.example", TRUSTED_PROXY_HOPS: "0", METRICS_TOKEN: "m".repeat(32), LOG_LEVEL: "silent" });
    expect(stderr).toContain("signet: refusing to start: SERVICE_OPERATOR_SECRET_KEY is required in production");
    expect(code).toBe(1);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 60_000);
});
