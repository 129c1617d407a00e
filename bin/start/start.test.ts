// `npm start` is production, always, and refuses to serve until its keys, its database, its operators and the proxy
// set-up are stated, its data directory holds no dev key and its production build exists, and refuses a database a
// newer release migrated or whose receipt log another log key signed: one line each.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minimalChildEnv } from "../../devtools/devtools-env";
import { bundleForNode, type NodeBundle } from "../../devtools/node-bundle";
import { MigrationsFromNewerReleaseError } from "../../server/db/apply-migrations";
import { signEd25519 } from "../../server/keys/node-ed25519";
import { generateKeypair, toSolanaCliJson, type Ed25519Keypair } from "../../server/keys/parse-secret-key";
import { createTestDatabase, type TestDatabase } from "../../server/test/support/test-db";
import { checkLogKeyContinuity } from "../../server/transparency/log-key-continuity";
import {
  EMPTY_ROOT,
  formatCheckpointText,
  formatSignatureLine,
  formatVerifierKey,
  parseVerifierKey,
} from "../../server/verify";

const root = path.resolve(import.meta.dirname, "../..");
const key = () => bs58.encode(generateKeypair().seed);

/**
 * How long a case's child may take, and so the case: a start-up that is refused takes a second or two alone, and the
 * cases run side by side on a machine the rest of `npm test` keeps busy.
 */
const CHILD_LIMIT_MS = 120_000;
/** bin/start/start.ts bundled once: each refused start runs it with plain node, not through tsx's loader. */
let bundle: NodeBundle;
beforeAll(async () => {
  bundle = await bundleForNode("bin/start/start.ts");
});
afterAll(() => bundle?.remove());

/**
 * Runs bin/start/start.ts (bundled) in production as `npm start` does; kills it if it is still running after `ms` (it
 * started serving). Every case is refused before start.ts starts the front server beside itself.
 */
function start(
  env: NodeJS.ProcessEnv,
  ms = CHILD_LIMIT_MS,
): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=react-server", bundle.entry], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let killed = false;
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, ms);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    });
  });
}

/** The one line a refusal writes: exit 1, nothing else on stderr. */
function refusal(result: Awaited<ReturnType<typeof start>>): string {
  expect(result.killed).toBe(false);
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

/** An empty folder: no production build in it. */
const noBuild = () => mkdtempSync(path.join(tmpdir(), "signet-no-build-"));

/** A folder a production build's marker is in: start-up's check of the build passes, so the checks after it run. */
function fakeBuild(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "signet-fake-build-"));
  writeFileSync(path.join(dir, "BUILD_ID"), "fake");
  return dir;
}

/** A fresh migrated PostgreSQL database, filled by `fill`, for the run of `use`; dropped afterwards. */
async function withDatabase<T>(
  fill: (db: TestDatabase) => Promise<void>,
  use: (url: string) => Promise<T>,
): Promise<T> {
  const db = await createTestDatabase(1);
  try {
    await fill(db);
    return await use(db.url);
  } finally {
    await db.drop();
  }
}

/** The empty tree's checkpoint under `origin`, signed by `key` as the log's publisher signs it. */
function emptyCheckpointSignedBy(origin: string, key: Ed25519Keypair): { size: number; note: string } {
  const text = formatCheckpointText({ origin, size: 0, root: EMPTY_ROOT });
  const keyId = parseVerifierKey(formatVerifierKey(origin, key.publicKey))!.keyId;
  return {
    size: 0,
    note: `${text}\n${formatSignatureLine(origin, keyId, signEd25519(new TextEncoder().encode(text), key.seed))}`,
  };
}

// Each case is its own child process and its own data dir or database: they run side by side.
describe.concurrent("bin/start/start.ts in production", { timeout: CHILD_LIMIT_MS + 30_000 }, () => {
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
    RPC_URL_SOLANA_DEVNET: "http://127.0.0.1:1",
    SESSION_SECRET: "s".repeat(64),
    IP_HASH_SALT: "salt".repeat(8),
    SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
    LOG_LEVEL: "silent",
  });
  /** Everything production needs, the production build aside. */
  const completeEnv = (): NodeJS.ProcessEnv => ({
    ...productionEnv(),
    TRUSTED_PROXY_HOPS: "0",
    METRICS_TOKEN: "m".repeat(32),
    LOG_SECRET_KEY: key(),
  });

  it("exits with one line naming TRUSTED_PROXY_HOPS when it is not set", async () => {
    // Everything else production needs is here, so the missing proxy set-up is the only reason to refuse.
    const result = await start({ ...productionEnv(), LOG_SECRET_KEY: key() });
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^signet: refusing to start: .*TRUSTED_PROXY_HOPS/);
  });

  it("exits with one line naming LOG_SECRET_KEY when the receipt log has no key", async () => {
    const env: NodeJS.ProcessEnv = { ...productionEnv(), TRUSTED_PROXY_HOPS: "0", METRICS_TOKEN: "m".repeat(32) };
    const result = await start(env);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe("signet: refusing to start: LOG_SECRET_KEY is required in production");
  });

  it("exits with one line naming both variables when two roles share a key", async () => {
    // The log key and the fee payer are loaded by different modules, and neither compares itself with the other.
    const shared = generateKeypair();
    const env: NodeJS.ProcessEnv = {
      ...productionEnv(),
      TRUSTED_PROXY_HOPS: "0",
      METRICS_TOKEN: "m".repeat(32),
      LOG_SECRET_KEY: bs58.encode(shared.seed),
      FACILITATOR_SECRET_KEY: bs58.encode(shared.seed),
    };
    const result = await start(env);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `signet: refusing to start: FACILITATOR_SECRET_KEY must differ from LOG_SECRET_KEY: both are the key ${shared.publicKeyBase58}; each service role needs a key of its own`,
    );
  });

  it("reads a key from the file its _FILE variable names, and exits with one line naming the variable when it cannot", async () => {
    // A key file as `signet keygen` writes it stands in for LOG_SECRET_KEY: every check passes, the build's aside.
    const dir = mkdtempSync(path.join(tmpdir(), "signet-key-file-"));
    writeFileSync(path.join(dir, "log-key.json"), `${toSolanaCliJson(generateKeypair())}\n`);
    const dist = noBuild();
    const read = await start({
      ...completeEnv(),
      LOG_SECRET_KEY: undefined,
      LOG_SECRET_KEY_FILE: path.join(dir, "log-key.json"),
      SIGNET_NEXT_DIST_DIR: dist,
    });
    expect(refusal(read)).toBe(
      `signet: refusing to start: no production build in ${dist} (SIGNET_NEXT_DIST_DIR): run \`npm run build\` first`,
    );
    const missing = await start({
      ...completeEnv(),
      LOG_SECRET_KEY: undefined,
      LOG_SECRET_KEY_FILE: path.join(dir, "absent.json"),
    });
    expect(refusal(missing)).toBe(
      `signet: refusing to start: LOG_SECRET_KEY_FILE: cannot read ${path.join(dir, "absent.json")} (ENOENT)`,
    );
  });

  it("exits with one line naming DATABASE_URL when none is set, rather than serving from the embedded database", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-start-"));
    const line = refusal(await start({ ...completeEnv(), DATABASE_URL: undefined, SIGNET_DATA_DIR: dataDir }));
    expect(line).toBe(
      "signet: refusing to start: DATABASE_URL must be set in production (a PostgreSQL URL); the embedded PGlite database under SIGNET_DATA_DIR serves one process only, and production uses it only with SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true",
    );
    // Refused before anything opened the embedded database.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("takes the embedded database when SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true, logging a warning at start", async () => {
    // The missing build stops it right after the warning: the embedded database itself was accepted.
    const env: NodeJS.ProcessEnv = {
      ...completeEnv(),
      DATABASE_URL: undefined,
      SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION: "true",
      SIGNET_NEXT_DIST_DIR: noBuild(),
      LOG_LEVEL: "warn",
    };
    const result = await start(env);
    expect(refusal(result)).toMatch(/^signet: refusing to start: no production build in /);
    const warnings = result.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: number; event?: string; detail?: string });
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        event: "config.production_opt_in",
        detail: `production runs on the embedded PGlite database under ${env.SIGNET_DATA_DIR} (SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true): one process only, no second instance`,
      }),
    ]);
  });

  it("reads an RPC's old name, logging a deprecation warning at start", async () => {
    // The missing build stops it right after the warnings: the old name itself was accepted.
    const env: NodeJS.ProcessEnv = {
      ...completeEnv(),
      RPC_URL_SOLANA_DEVNET: undefined,
      SOLANA_DEVNET_RPC_URL: "http://127.0.0.1:1",
      SIGNET_NEXT_DIST_DIR: noBuild(),
      LOG_LEVEL: "warn",
    };
    const result = await start(env);
    expect(refusal(result)).toMatch(/^signet: refusing to start: no production build in /);
    const warnings = result.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: number; event?: string; detail?: string });
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        event: "config.deprecated",
        detail:
          "SOLANA_DEVNET_RPC_URL is deprecated and will be removed in the next release: rename it RPC_URL_SOLANA_DEVNET",
      }),
    ]);
  });

  it("exits with one line naming both when an RPC's old and new names hold different URLs", async () => {
    const line = refusal(await start({ ...completeEnv(), SOLANA_DEVNET_RPC_URL: "http://127.0.0.1:2" }));
    expect(line).toBe(
      "signet: refusing to start: SOLANA_DEVNET_RPC_URL and RPC_URL_SOLANA_DEVNET are both set, to different URLs: SOLANA_DEVNET_RPC_URL is the old name of RPC_URL_SOLANA_DEVNET; keep only RPC_URL_SOLANA_DEVNET",
    );
  });

  it("exits with one line naming an RPC_URL_ variable that names no network, and the known ids", async () => {
    const line = refusal(await start({ ...completeEnv(), RPC_URL_ETHEREUM: "https://eth.example" }));
    expect(line).toBe(
      "signet: refusing to start: RPC_URL_ETHEREUM names no network this service knows; the known ids: solana-devnet (RPC_URL_SOLANA_DEVNET), solana-mainnet (RPC_URL_SOLANA_MAINNET), base (RPC_URL_BASE), base-sepolia (RPC_URL_BASE_SEPOLIA), polygon (RPC_URL_POLYGON), polygon-amoy (RPC_URL_POLYGON_AMOY), avalanche (RPC_URL_AVALANCHE), avalanche-fuji (RPC_URL_AVALANCHE_FUJI)",
    );
  });

  it("exits with one line naming SERVICE_OPERATOR_PUBKEYS when no operator could sign in to the dashboard", async () => {
    const line = refusal(await start({ ...completeEnv(), SERVICE_OPERATOR_PUBKEYS: undefined }));
    expect(line).toBe(
      "signet: refusing to start: SERVICE_OPERATOR_PUBKEYS must be set in production: the comma-separated base58 Solana keys allowed to sign in to the operator dashboard (without one, nobody can sign in)",
    );
  });

  it("exits with one line naming SIGNET_DATA_DIR when it holds dev keys", async () => {
    const env = completeEnv();
    // What `npm run dev` leaves behind: the operator's and the fee payer's dev keys.
    for (const file of ["operator-key.json", "facilitator-key.json"])
      writeFileSync(path.join(env.SIGNET_DATA_DIR!, file), "[]");
    const line = refusal(await start(env));
    expect(line).toBe(
      `signet: refusing to start: SIGNET_DATA_DIR (${env.SIGNET_DATA_DIR}) holds dev keys (operator-key.json, facilitator-key.json): production must not run beside them; give production a data directory of its own`,
    );
  });

  it("exits with one line naming the key that signed the receipt log when LOG_SECRET_KEY did not and no LOG_PREVIOUS_SECRET_KEY is set", async () => {
    // The database of a log another key signed (a replaced key, a backup restored beside another deployment's key).
    const signer = generateKeypair();
    const logKey = generateKeypair();
    const origin = "localhost:3299/log";
    const checkpoint = emptyCheckpointSignedBy(origin, signer);
    const line = await withDatabase(
      (db) =>
        db.prisma.logCheckpoint
          .create({ data: { size: 0n, root: Buffer.from(EMPTY_ROOT), note: checkpoint.note } })
          .then(() => undefined),
      async (url) =>
        refusal(
          await start({
            ...completeEnv(),
            DATABASE_URL: url,
            LOG_SECRET_KEY: bs58.encode(logKey.seed),
            SIGNET_NEXT_DIST_DIR: fakeBuild(),
          }),
        ),
    );
    const decided = checkLogKeyContinuity(checkpoint, {
      origin,
      verifierKey: formatVerifierKey(origin, logKey.publicKey),
      previous: null,
    });
    if (decided.ok) throw new Error("the rule lets this key sign the log");
    expect(line).toBe(`signet: refusing to start: ${decided.detail}`);
    const id = (key: Ed25519Keypair) =>
      parseVerifierKey(formatVerifierKey(origin, key.publicKey))!.keyId.toString(16).padStart(8, "0");
    expect(line).toContain(
      `is signed by key ${id(signer)}, not by LOG_SECRET_KEY (key ${id(logKey)}), and LOG_PREVIOUS_SECRET_KEY is unset`,
    );
    expect(line).toContain(`set LOG_PREVIOUS_SECRET_KEY to the key that signed the log (key ${id(signer)})`);
  });

  it("exits with one line naming the migrations when a newer release migrated the database", async () => {
    const newer = "29991231000000_from_a_newer_release";
    const line = await withDatabase(
      (db) =>
        db.prisma
          .$executeRaw`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (gen_random_uuid(), 'x', now(), ${newer}, 1)`.then(
          () => undefined,
        ),
      async (url) => refusal(await start({ ...completeEnv(), DATABASE_URL: url, SIGNET_NEXT_DIST_DIR: fakeBuild() })),
    );
    expect(line).toBe(`signet: refusing to start: ${new MigrationsFromNewerReleaseError([newer]).message}`);
  });

  it("exits with one line naming the migration when an applied one differs from this release's file", async () => {
    const line = await withDatabase(
      (db) =>
        db.prisma
          .$executeRaw`UPDATE "_prisma_migrations" SET checksum = 'edited' WHERE migration_name = (SELECT max(migration_name) FROM "_prisma_migrations")`.then(
          () => undefined,
        ),
      async (url) => refusal(await start({ ...completeEnv(), DATABASE_URL: url, SIGNET_NEXT_DIST_DIR: fakeBuild() })),
    );
    expect(line).toMatch(/^signet: refusing to start: .*20\d{12}_\w+/);
  });

  it("exits with one line saying to run `npm run build` when there is no production build, not Next's stack trace", async () => {
    const dist = noBuild();
    const line = refusal(await start({ ...completeEnv(), SIGNET_NEXT_DIST_DIR: dist }));
    expect(line).toBe(
      `signet: refusing to start: no production build in ${dist} (SIGNET_NEXT_DIST_DIR): run \`npm run build\` first`,
    );
  });
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
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_LIMIT_MS);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("npm start", () => {
  it(
    "is production even without NODE_ENV: with no keys configured it refuses to start and writes no dev keys",
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "signet-start-"));
      const { code, stderr } = await npmStart({
        SIGNET_DATA_DIR: dataDir,
        PORT: "39517",
        SERVICE_BASE_URL: "https://signet.example",
        TRUSTED_PROXY_HOPS: "0",
        METRICS_TOKEN: "m".repeat(32),
        DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none",
        SERVICE_OPERATOR_PUBKEYS: generateKeypair().publicKeyBase58,
        LOG_LEVEL: "silent",
      });
      expect(stderr).toContain("signet: refusing to start: SERVICE_OPERATOR_SECRET_KEY is required in production");
      expect(code).toBe(1);
      expect(readdirSync(dataDir)).toEqual([]);
    },
    CHILD_LIMIT_MS + 30_000,
  );
});
