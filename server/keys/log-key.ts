// The receipt log's identity: its Ed25519 key (LOG_SECRET_KEY; dev: generated into the data dir), which must differ
// from the operator key that signs receipts, its origin (the checkpoint's first line, also the key's name), and the
// witness keys whose cosignatures it publishes.
// A log key is rotated without starting a new log: the same origin and the same tree, with every checkpoint signed by
// both keys for a while (LOG_PREVIOUS_SECRET_KEY co-signs), so whoever pins the old key keeps verifying until they pin
// the new one. Signed notes allow this: a verifier ignores the signature lines of keys it does not know.
import "server-only";
import { ConfigError, type Config } from "../env";
import { loadSigningKey } from "./load-signing-key";
import { parseSecretKey, type Ed25519Keypair } from "./parse-secret-key";
import { ed25519RoleKey, refuseSharedKeys } from "./refuse-shared-keys";
import { refuseRetiredOperatorKey } from "./retired-operator-keys";
import {
  formatVerifierKey,
  parseVerifierKey,
  SIG_COSIGNATURE_V1,
  type NoteVerifierKey,
  type RetiredOperatorKey,
} from "../verify";

export const LOG_DEV_KEY_FILE = "log-key.json";

/** One key the log signs checkpoints with, under its origin. */
export interface LogSigner {
  keypair: Ed25519Keypair;
  /** `<origin>+<key ID>+<base64(0x01 ‖ public key)>`: what verifiers pin. */
  verifierKey: string;
  keyId: number;
}

export interface LogIdentity extends LogSigner {
  origin: string;
  witnesses: NoteVerifierKey[];
  /** During a key rotation, the previous key (LOG_PREVIOUS_SECRET_KEY): it co-signs every checkpoint; else null. */
  previous: LogSigner | null;
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
      if (!key || key.type !== SIG_COSIGNATURE_V1)
        throw new ConfigError(
          `LOG_WITNESS_KEYS: "${k.slice(0, 60)}" is not a witness cosignature key (<name>+<id>+<base64 of 0x04 and the key>)`,
        );
      return key;
    });
}

/** The signer of `keypair` under `origin`. */
function logSigner(origin: string, keypair: Ed25519Keypair): LogSigner {
  const verifierKey = formatVerifierKey(origin, keypair.publicKey);
  return { keypair, verifierKey, keyId: parseVerifierKey(verifierKey)!.keyId };
}

/** LOG_PREVIOUS_SECRET_KEY's keypair, or null when unset; a malformed one is a ConfigError naming it. */
function loadPreviousLogKey(cfg: Config): Ed25519Keypair | null {
  if (cfg.LOG_PREVIOUS_SECRET_KEY === undefined) return null;
  try {
    return parseSecretKey(cfg.LOG_PREVIOUS_SECRET_KEY);
  } catch {
    throw new ConfigError("LOG_PREVIOUS_SECRET_KEY is not a valid Ed25519 secret key (the forms LOG_SECRET_KEY takes)");
  }
}

/**
 * The log's identity that `cfg` names; `operator` is the receipt-signing key it must differ from, `retired` the
 * operator's retired keys. Production without LOG_SECRET_KEY is a start-up error naming it.
 */
export function loadLogIdentity(
  cfg: Config,
  operator: Ed25519Keypair,
  retired: readonly RetiredOperatorKey[] = [],
): LogIdentity {
  const keypair = loadSigningKey({
    envVar: "LOG_SECRET_KEY",
    value: cfg.LOG_SECRET_KEY,
    isProduction: cfg.isProduction,
    dataDir: cfg.dataDir,
    devFile: LOG_DEV_KEY_FILE,
  });
  const previous = loadPreviousLogKey(cfg);
  // SECURITY: a checkpoint signature must never double as a receipt signature, nor the other way round.
  const roles = [ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", operator), ed25519RoleKey("LOG_SECRET_KEY", keypair)];
  refuseSharedKeys(previous ? [...roles, ed25519RoleKey("LOG_PREVIOUS_SECRET_KEY", previous)] : roles);
  refuseRetiredOperatorKey(retired, "LOG_SECRET_KEY", keypair.publicKeyBase58);
  if (previous) refuseRetiredOperatorKey(retired, "LOG_PREVIOUS_SECRET_KEY", previous.publicKeyBase58);
  const origin = cfg.LOG_ORIGIN ?? defaultLogOrigin(cfg.baseUrl);
  return {
    origin,
    ...logSigner(origin, keypair),
    witnesses: parseWitnessKeys(cfg.LOG_WITNESS_KEYS),
    previous: previous ? logSigner(origin, previous) : null,
  };
}

/** Every key that signs the log's checkpoints now: the log key, then the previous one during a rotation. */
export function logSigners(id: LogIdentity): LogSigner[] {
  return id.previous ? [id, id.previous] : [id];
}
