// `npm run preview`: the production build, served as `npm start` serves it, against the dev keys and the local chains
// that `npm run dev` makes. Production refuses to start without its keys and settings; here each one a deployment
// would configure is filled from .data/ (made on first use, like the dev keys) unless the environment sets it, so the
// browser suite can pass its own and still go through this same path.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import bs58 from "bs58";
import type { Config } from "../../server/env";
import { FACILITATOR_EVM_DEV_KEY_FILE } from "../../server/facilitator/create-evm-facilitator";
import { FACILITATOR_DEV_KEY_FILE } from "../../server/facilitator/create-facilitator";
import { loadOrCreateDevEvmKey } from "../../server/keys/evm-key";
import { loadOrCreateDevKey } from "../../server/keys/load-signing-key";
import { OPERATOR_DEV_KEY_FILE, VERIFIER_DEV_KEY_FILE } from "../../server/keys/service-keys";
import { LOG_DEV_KEY_FILE } from "../../server/keys/log-key";
import { localChainServerEnv, type LocalChainUrls } from "../../devtools/start-local-chains";

/** A secret kept in the data directory: read if there, else made (hex of `bytes` random bytes) and kept. */
function keptSecret(dataDir: string, file: string, bytes: number): string {
  const where = path.join(dataDir, file);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(where, randomBytes(bytes).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return readFileSync(where, "utf8").trim();
}

/** A dev Ed25519 key from the data directory, as production's *_SECRET_KEY variables take it (base58 seed). */
function devSecretKey(dataDir: string, file: string): string {
  return bs58.encode(loadOrCreateDevKey(path.join(dataDir, file)).seed);
}

/**
 * The environment `npm start` needs to serve the local stack: NODE_ENV=production and every key and setting production
 * requires, from the dev keys in `cfg.dataDir`; what `base` already sets is kept. `operatorSignInKey` is let into the
 * dashboard beside any listed operator.
 */
export function localProductionEnv(
  base: NodeJS.ProcessEnv,
  cfg: Config,
  chains: LocalChainUrls,
  extra: { operatorSignInKey: string; mainnetDepositAddress?: string },
): NodeJS.ProcessEnv {
  const dir = cfg.dataDir;
  const filled: Record<string, string | undefined> = {
    SERVICE_BASE_URL: cfg.baseUrl,
    SERVICE_OPERATOR_SECRET_KEY: devSecretKey(dir, OPERATOR_DEV_KEY_FILE),
    VERIFIER_SECRET_KEY: devSecretKey(dir, VERIFIER_DEV_KEY_FILE),
    LOG_SECRET_KEY: devSecretKey(dir, LOG_DEV_KEY_FILE),
    FACILITATOR_SECRET_KEY: devSecretKey(dir, FACILITATOR_DEV_KEY_FILE),
    FACILITATOR_EVM_SECRET_KEY: cfg.networks.ofFamily("evm").some((n) => chains[n.id] !== undefined)
      ? loadOrCreateDevEvmKey(path.join(dir, FACILITATOR_EVM_DEV_KEY_FILE))
      : undefined,
    SESSION_SECRET: keptSecret(dir, "session-secret", 32),
    IP_HASH_SALT: keptSecret(dir, "ip-hash-salt", 16),
    METRICS_TOKEN: keptSecret(dir, "metrics-token", 16),
    // The browser and the CLI connect to this machine directly.
    TRUSTED_PROXY_HOPS: "0",
    SERVICE_MAINNET_DEPOSIT_ADDRESS: extra.mainnetDepositAddress,
    // The chains' RPCs, and the verifier and explorer let onto them (they listen on loopback, with no provider keys).
    ...localChainServerEnv(chains),
  };
  const env: NodeJS.ProcessEnv = { ...base, NODE_ENV: "production" };
  for (const [name, value] of Object.entries(filled)) if (value !== undefined && !env[name]) env[name] = value;
  env.SERVICE_OPERATOR_PUBKEYS = [env.SERVICE_OPERATOR_PUBKEYS, extra.operatorSignInKey]
    .filter((k) => k && k.trim() !== "")
    .join(",");
  return env;
}

/** Where a build's inputs live: a file in them newer than the build means the build is stale. */
const BUILD_INPUTS = [
  "app",
  "server",
  "public",
  "next.config.mjs",
  "package-lock.json",
  "postcss.config.mjs",
  "tsconfig.json",
];

/**
 * Folders no build reads: dependencies, tests, and the lint suite's probe folder (eslint.config.test.ts writes it under
 * server/ while it runs, beside npm test's browser suite starting this build).
 */
const NOT_BUILD_INPUTS = new Set(["node_modules", "test", "__cycle_probe__"]);

/** The newest modification time among `paths` (files, or folders walked), test files aside. */
function newestMtimeMs(paths: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    const stat = statSync(p, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p))
        if (!NOT_BUILD_INPUTS.has(entry) && !entry.endsWith(".test.ts")) visit(path.join(p, entry));
    } else if (stat.mtimeMs > newest) newest = stat.mtimeMs;
  };
  for (const p of paths) visit(p);
  return newest;
}

/**
 * Builds the production bundle with `env` (`next build`) unless the one in its dist dir is newer than every input.
 * Returns false when the build failed.
 */
export function ensureProductionBuild(env: NodeJS.ProcessEnv, log: (line: string) => void): boolean {
  const distDir = path.resolve(env.SIGNET_NEXT_DIST_DIR || ".next");
  const buildId = path.join(distDir, "BUILD_ID");
  if (existsSync(buildId) && statSync(buildId).mtimeMs > newestMtimeMs(BUILD_INPUTS)) {
    log(`production build in ${path.relative(process.cwd(), distDir)} is current`);
    return true;
  }
  log(`building for production into ${path.relative(process.cwd(), distDir)} (next build)`);
  const started = Date.now();
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const build = spawnSync(process.execPath, [nextBin, "build"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (build.status !== 0) return false;
  log(`next build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}
