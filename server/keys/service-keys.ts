// The service's Ed25519 signing keys, loaded lazily: the operator key signs receipts, the verifier key signs hosted
// verdicts, the log key signs checkpoints. Each must differ from the others (refuse-shared-keys.ts holds the rule), and
// from the operator's retired keys (retired-operator-keys.ts).
import "server-only";
import { ConfigError, type Config } from "../env";
import type { OperatorKeys, RetiredOperatorKey } from "../verify";
import { operatorKeyFragment } from "../verify/operator-jws";
import { loadSigningKey } from "./load-signing-key";
import type { Ed25519Keypair } from "./parse-secret-key";
import { ed25519RoleKey, refuseSharedKeys } from "./refuse-shared-keys";
import { parseRetiredOperatorKeys, refuseRetiredOperatorKey, RETIRED_KEYS_VARIABLE } from "./retired-operator-keys";
import { loadLogIdentity, type LogIdentity } from "./log-key";

export const OPERATOR_DEV_KEY_FILE = "operator-key.json";
export const VERIFIER_DEV_KEY_FILE = "verifier-key.json";

/** A runtime's signing keys, each loaded on first use and kept. */
export interface ServiceKeys {
  /** The receipt-signing key (SERVICE_OPERATOR_SECRET_KEY, or the dev key). Loads and checks the retired keys too. */
  operator(): Ed25519Keypair;
  /** The operator's public keys: the current one and the retired ones (SERVICE_OPERATOR_RETIRED_KEYS). */
  operatorKeys(): OperatorKeys;
  /** The verdict-signing key (VERIFIER_SECRET_KEY, or the dev key). Refuses to equal the operator key. */
  verifier(): Ed25519Keypair;
  /** The receipt log's identity (LOG_SECRET_KEY, its origin and witnesses). */
  log(): LogIdentity;
}

/** The receipt-signing key that `cfg` names (SERVICE_OPERATOR_SECRET_KEY, or the dev key in its data dir). */
function loadOperatorKeypair(cfg: Config): Ed25519Keypair {
  return loadSigningKey({
    envVar: "SERVICE_OPERATOR_SECRET_KEY",
    value: cfg.SERVICE_OPERATOR_SECRET_KEY,
    isProduction: cfg.isProduction,
    dataDir: cfg.dataDir,
    devFile: OPERATOR_DEV_KEY_FILE,
  });
}

/** The operator keys `cfg` names: the signing key, and the retired keys, none of them the signing key itself. */
function loadOperatorRing(cfg: Config): { keypair: Ed25519Keypair; retired: RetiredOperatorKey[] } {
  const retired = parseRetiredOperatorKeys(cfg.SERVICE_OPERATOR_RETIRED_KEYS);
  const keypair = loadOperatorKeypair(cfg);
  if (retired.some((r) => r.pubkey === keypair.publicKeyBase58)) {
    throw new ConfigError(
      `${RETIRED_KEYS_VARIABLE} lists the current operator key ${keypair.publicKeyBase58} (SERVICE_OPERATOR_SECRET_KEY): a key is retired once another key signs in its place`,
    );
  }
  // Each key's JWS name it by a per-key id made of the key's first characters: two keys with one id could not be told
  // apart by a verifier, so the did:web document would refuse to list them.
  const seen = new Map([[operatorKeyFragment(keypair.publicKeyBase58), keypair.publicKeyBase58]]);
  for (const { pubkey } of retired) {
    const other = seen.get(operatorKeyFragment(pubkey));
    if (other !== undefined)
      throw new ConfigError(
        `${RETIRED_KEYS_VARIABLE}: ${pubkey} and ${other} share the key id #${operatorKeyFragment(pubkey)}: make the new operator key again`,
      );
    seen.set(operatorKeyFragment(pubkey), pubkey);
  }
  return { keypair, retired };
}

/** The verdict-signing key that `cfg` names; refuses one equal to `operator` or to one of its retired keys. */
function loadVerifierKeypair(
  cfg: Config,
  operator: Ed25519Keypair,
  retired: readonly RetiredOperatorKey[],
): Ed25519Keypair {
  const key = loadSigningKey({
    envVar: "VERIFIER_SECRET_KEY",
    value: cfg.VERIFIER_SECRET_KEY,
    isProduction: cfg.isProduction,
    dataDir: cfg.dataDir,
    devFile: VERIFIER_DEV_KEY_FILE,
  });
  // SECURITY: a verdict signature must never be mistaken for a receipt signature.
  refuseSharedKeys([
    ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", operator),
    ed25519RoleKey("VERIFIER_SECRET_KEY", key),
  ]);
  refuseRetiredOperatorKey(retired, "VERIFIER_SECRET_KEY", key.publicKeyBase58);
  return key;
}

/**
 * The keys `cfg` names, loaded lazily: a route that signs nothing never reads a key file. Each refuses the operator
 * key it is compared with on load; that no two roles share a key at all is checked at start-up (check-service-keys.ts).
 */
export function createServiceKeys(cfg: Config): ServiceKeys {
  let ring: ReturnType<typeof loadOperatorRing> | undefined;
  let verifier: Ed25519Keypair | undefined;
  let log: LogIdentity | undefined;
  const operatorRing = () => (ring ??= loadOperatorRing(cfg));
  const keys: ServiceKeys = {
    operator: () => operatorRing().keypair,
    operatorKeys: () => ({ pubkey: operatorRing().keypair.publicKeyBase58, retired: operatorRing().retired }),
    verifier: () => (verifier ??= loadVerifierKeypair(cfg, keys.operator(), operatorRing().retired)),
    log: () => (log ??= loadLogIdentity(cfg, keys.operator(), operatorRing().retired)),
  };
  return keys;
}
