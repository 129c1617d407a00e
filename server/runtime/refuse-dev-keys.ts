// Production never starts beside dev keys: the files the dev key loaders write into the data directory. A data dir
// that holds one was a dev machine's, and a key copied out of it into the environment would sign real receipts.
import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, type Config } from "../env";
import { FACILITATOR_EVM_DEV_KEY_FILE } from "../facilitator/create-evm-facilitator";
import { FACILITATOR_DEV_KEY_FILE } from "../facilitator/create-facilitator";
import { OPERATOR_DEV_KEY_FILE, VERIFIER_DEV_KEY_FILE } from "../keys/service-keys";
import { DEV_OPERATOR_SIGN_IN_KEY_FILE } from "../operator-auth/dev-operator";
import { LOG_DEV_KEY_FILE } from "../keys/log-key";

/** Every file a dev key loader writes into the data directory: the service roles' keys and the dashboard's sign-in key. */
export const DEV_KEY_FILES: readonly string[] = [
  OPERATOR_DEV_KEY_FILE,
  VERIFIER_DEV_KEY_FILE,
  LOG_DEV_KEY_FILE,
  FACILITATOR_DEV_KEY_FILE,
  FACILITATOR_EVM_DEV_KEY_FILE,
  DEV_OPERATOR_SIGN_IN_KEY_FILE,
];

/** The dev key files present in `dataDir`, in DEV_KEY_FILES' order. */
export function devKeyFilesIn(dataDir: string): string[] {
  if (typeof dataDir !== "string" || dataDir === "")
    throw new TypeError("devKeyFilesIn: dataDir must be a non-empty path");
  return DEV_KEY_FILES.filter((file) => existsSync(path.join(dataDir, file)));
}

/**
 * In production, throws a one-line ConfigError naming SIGNET_DATA_DIR when it holds a dev key, unless
 * SIGNET_DEV_KEYS_IN_PRODUCTION is true (a local rehearsal). Nothing outside production.
 */
export function refuseDevKeysInProduction(
  cfg: Pick<Config, "isProduction" | "dataDir" | "SIGNET_DEV_KEYS_IN_PRODUCTION">,
): void {
  if (!cfg.isProduction || cfg.SIGNET_DEV_KEYS_IN_PRODUCTION) return;
  const found = devKeyFilesIn(cfg.dataDir);
  if (found.length === 0) return;
  // SECURITY: a dev key sits unencrypted in a folder `npm run dev` shares with the local chains and every dev tool.
  throw new ConfigError(
    `SIGNET_DATA_DIR (${cfg.dataDir}) holds dev keys (${found.join(", ")}): production must not run beside them; give production a data directory of its own`,
  );
}
