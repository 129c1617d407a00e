// The receipt log's identity: its Ed25519 key (LOG_SECRET_KEY; dev: generated into the data dir), which must differ
// from the operator key that signs receipts, its origin (the checkpoint's first line, also the key's name), and the
// witness keys whose cosignatures it publishes.
import "server-only";
import { ConfigError, type Config } from "../env";
import { loadSigningKey } from "../keys/load-signing-key";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { ed25519RoleKey, refuseSharedKeys } from "../keys/refuse-shared-keys";
import { formatVerifierKey, parseVerifierKey, SIG_COSIGNATURE_V1, type NoteVerifierKey } from "../verify";

export const LOG_DEV_KEY_FILE = "log-key.json";

export interface LogIdentity {
  origin: string;
  keypair: Ed25519Keypair;
  /** `<origin>+<key ID>+<base64(0x01 ‖ public key)>`: what verifiers pin. */
  verifierKey: string;
  keyId: number;
  witnesses: NoteVerifierKey[];
}

/** The origin when LOG_ORIGIN is unset: the public base URL without its scheme, plus `/log` (the tiles' prefix). */
export function defaultLogOrigin(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, "")}/log`;
}

/** Parses LOG_WITNESS_KEYS: every entry must be a cosignature (type 0x04) verifier key. */
export function parseWitnessKeys(text: string): NoteVerifierKey[] {
  return text
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "")
    .map((k) => {
      const key = parseVerifierKey(k);
      if (!key || key.type !== SIG_COSIGNATURE_V1) throw new ConfigError(`LOG_WITNESS_KEYS: "${k.slice(0, 60)}" is not a witness cosignature key (<name>+<id>+<base64 of 0x04 and the key>)`);
      return key;
    });
}

/**
 * The log's identity that `cfg` names; `operator` is the receipt-signing key it must differ from. Production without
 * LOG_SECRET_KEY is a start-up error naming it.
 */
export function loadLogIdentity(cfg: Config, operator: Ed25519Keypair): LogIdentity {
  const keypair = loadSigningKey({ envVar: "LOG_SECRET_KEY", value: cfg.LOG_SECRET_KEY, isProduction: cfg.isProduction, dataDir: cfg.dataDir, devFile: LOG_DEV_KEY_FILE });
  // SECURITY: a checkpoint signature must never double as a receipt signature, nor the other way round.
  refuseSharedKeys([ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", operator), ed25519RoleKey("LOG_SECRET_KEY", keypair)]);
  const origin = cfg.LOG_ORIGIN ?? defaultLogOrigin(cfg.baseUrl);
  const verifierKey = formatVerifierKey(origin, keypair.publicKey);
  return { origin, keypair, verifierKey, keyId: parseVerifierKey(verifierKey)!.keyId, witnesses: parseWitnessKeys(cfg.LOG_WITNESS_KEYS) };
}
