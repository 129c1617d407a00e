// The service's two Ed25519 keys: the operator key signs receipts, the verifier key signs hosted verdicts.
// They must differ, so a verdict can never be mistaken for a receipt signature.
import "server-only";
import { config, ConfigError } from "../env";
import { loadSigningKey } from "./load-signing-key";
import type { Ed25519Keypair } from "./parse-secret-key";

export const OPERATOR_DEV_KEY_FILE = "operator-key.json";
export const VERIFIER_DEV_KEY_FILE = "verifier-key.json";

const cache = globalThis as unknown as { signetOperatorKey?: Ed25519Keypair; signetVerifierKey?: Ed25519Keypair };

/** The receipt-signing key (SERVICE_OPERATOR_SECRET_KEY, or the dev key). */
export function operatorKeypair(): Ed25519Keypair {
  if (!cache.signetOperatorKey) {
    const cfg = config();
    cache.signetOperatorKey = loadSigningKey({
      envVar: "SERVICE_OPERATOR_SECRET_KEY",
      value: cfg.SERVICE_OPERATOR_SECRET_KEY,
      isProduction: cfg.isProduction,
      dataDir: cfg.dataDir,
      devFile: OPERATOR_DEV_KEY_FILE,
    });
  }
  return cache.signetOperatorKey;
}

/** The verdict-signing key (VERIFIER_SECRET_KEY, or the dev key). Refuses to equal the operator key. */
export function verifierKeypair(): Ed25519Keypair {
  if (!cache.signetVerifierKey) {
    const cfg = config();
    const key = loadSigningKey({
      envVar: "VERIFIER_SECRET_KEY",
      value: cfg.VERIFIER_SECRET_KEY,
      isProduction: cfg.isProduction,
      dataDir: cfg.dataDir,
      devFile: VERIFIER_DEV_KEY_FILE,
    });
    if (key.publicKeyBase58 === operatorKeypair().publicKeyBase58) {
      throw new ConfigError("VERIFIER_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY");
    }
    cache.signetVerifierKey = key;
  }
  return cache.signetVerifierKey;
}

/** Forgets loaded keys (tests that change the environment). */
export function resetServiceKeysForTests(): void {
  cache.signetOperatorKey = undefined;
  cache.signetVerifierKey = undefined;
}
