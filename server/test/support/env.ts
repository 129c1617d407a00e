// The tests' one reader of the environment: the variables vitest started with, plus the overrides a test applies.
// Overrides never touch process.env: they make a new config, which the route edge builds its next runtime from.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig, type Config } from "../../env";
import type { NetworkRegistry } from "../../verify";
import { createServiceKeys, type ServiceKeys } from "../../keys/service-keys";
import { useRouteConfig } from "../../runtime/route-edge";
import type { Ed25519Keypair } from "../../keys/parse-secret-key";
import type { LogIdentity } from "../../keys/log-key";

/** The environment tests run with now: vitest's, then every override still applied. */
let current: Record<string, string | undefined> = { ...process.env };
/** The networks the config is loaded for: a test's own registry (setEnv's `networks`), else this release's. */
let currentNetworks: NetworkRegistry | undefined;
let parsed: { env: typeof current; networks: NetworkRegistry | undefined; config: Config; keys: ServiceKeys } | null =
  null;

/** The config of `env` for the current networks. */
function load(env: Record<string, string | undefined>): Config {
  return loadConfig(env, currentNetworks ? { networks: currentNetworks } : {});
}

/** A fresh data dir for dev keys and the embedded database. */
export function tempDataDir(prefix = "signet-test-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** The environment as tests see it now (for a child process: spread it into the child's env). */
export function testEnv(vars: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...current } as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A test-database URL's admin server: TEST_DATABASE_URL, or the local PostgreSQL. */
export const TEST_ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** A long test's tuning knob (runs, calls, a seed) and a test's optional text setting: the dev tools' own readers. */
export { devtoolsKnob as testKnob, devtoolsSetting as testSetting } from "../../../devtools/devtools-env";

/** Whether the suite runs under CI. */
export const IN_CI = process.env.CI !== undefined && process.env.CI !== "";

function parsedNow(): { config: Config; keys: ServiceKeys } {
  if (!parsed || parsed.env !== current || parsed.networks !== currentNetworks) {
    const config = load(current);
    parsed = { env: current, networks: currentNetworks, config, keys: createServiceKeys(config) };
  }
  return parsed;
}

/** The config of the environment as tests see it now. */
export function testConfig(): Config {
  return parsedNow().config;
}

/** The receipt-signing key of the current test config. */
export function operatorKeypair(): Ed25519Keypair {
  return parsedNow().keys.operator();
}

/** The verdict-signing key of the current test config. */
export function verifierKeypair(): Ed25519Keypair {
  return parsedNow().keys.verifier();
}

/** The receipt log's identity under the current test config. */
export function logIdentity(): LogIdentity {
  return parsedNow().keys.log();
}

/**
 * Applies `vars` (undefined deletes) over the test environment and points the routes at the config they make (the
 * route edge builds its next runtime from it), for `options.networks` when given (else the networks set before);
 * returns a function that restores the previous environment and networks.
 */
export function setEnv(
  vars: Record<string, string | undefined>,
  options: { networks?: NetworkRegistry } = {},
): () => Promise<void> {
  const previous = current;
  const previousNetworks = currentNetworks;
  current = testEnv(vars);
  if (options.networks) currentNetworks = options.networks;
  const switched = useRouteConfig(load(current));
  return async () => {
    await switched;
    current = previous;
    currentNetworks = previousNetworks;
    await useRouteConfig(load(current));
  };
}

/** Runs `fn` with more env overrides, restoring the previous env (and the routes' config) afterwards. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const undo = setEnv(vars);
  try {
    return await fn();
  } finally {
    await undo();
  }
}
