// The operator's keys as a verifier sees them: the key that signs receipts now, and the keys it signed with before
// (retired), each with the time it stopped vouching for receipts. A retired key still proves the receipts it signed
// before that time (their own `timestamp` says when), and nothing after it. Pure and browser-safe.
import { checkEd25519, decodeBase58, type Ed25519Backend } from "./ed25519";

/** A key the operator signed receipts with before, and when it stopped (Unix ms). */
export interface RetiredOperatorKey {
  /** base58 Ed25519 public key. */
  pubkey: string;
  /** Receipts whose `timestamp` is at or after this instant (Unix ms) are not vouched for by this key. */
  retired_at: number;
}

/** The operator's keys, as `GET /api/v1/operator-key` publishes them (its `algorithm` and `encoding` left out). */
export interface OperatorKeys {
  /** The current key, base58. */
  pubkey: string;
  /** The retired keys; empty when the operator never rotated (or the service predates rotation). */
  retired: readonly RetiredOperatorKey[];
}

/**
 * Reads the operator-key resource's body: `{ pubkey, retired?: [{ pubkey, retired_at }] }`. A body without `retired`
 * (a service from before key rotation) has none. Null when anything is malformed: a key that is not base58 of 32
 * bytes, a retirement time that is not a whole, non-negative number of Unix ms, a key listed twice, or the current key
 * listed as retired.
 */
export function parseOperatorKeys(body: unknown): OperatorKeys | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const { pubkey, retired } = body as { pubkey?: unknown; retired?: unknown };
  if (typeof pubkey !== "string" || !decodeBase58(pubkey, 32)) return null;
  if (retired === undefined) return { pubkey, retired: [] };
  if (!Array.isArray(retired)) return null;
  const seen = new Set<string>([pubkey]);
  const keys: RetiredOperatorKey[] = [];
  for (const entry of retired as unknown[]) {
    if (typeof entry !== "object" || entry === null) return null;
    const { pubkey: key, retired_at: retiredAt } = entry as { pubkey?: unknown; retired_at?: unknown };
    if (typeof key !== "string" || !decodeBase58(key, 32) || seen.has(key)) return null;
    if (typeof retiredAt !== "number" || !Number.isSafeInteger(retiredAt) || retiredAt < 0) return null;
    seen.add(key);
    keys.push({ pubkey: key, retired_at: retiredAt });
  }
  return { pubkey, retired: keys };
}

/** Why a signature does not stand for the operator. */
export type OperatorSignatureFailure =
  /** Made by none of the keys (or over other bytes). */
  | "signature_invalid"
  /** Made by a retired key, for a receipt whose timestamp is at or after that key's retirement. */
  | "signed_after_retirement"
  /** Made by a retired key, for a receipt without a timestamp (a whole number of Unix ms) to place it in time. */
  | "timestamp_missing";

export type OperatorSignatureCheck =
  | { ok: true; pubkey: string; retiredAt: number | null }
  | { ok: false; reason: OperatorSignatureFailure; pubkey: string; retiredAt: number | null };

/**
 * Checks a detached signature against the operator's keys: the current key whatever the timestamp; a retired key only
 * when `timestamp` (the receipt's own, Unix ms) is before that key's retirement. `pubkey` names the key that made the
 * signature (the current key when none did); `retiredAt` its retirement, null for the current key.
 * SECURITY: the timestamp is the signer's own claim; a retirement bounds what the key vouches for from then on, but
 * whoever holds a retired key's secret can still backdate. A key that leaked is removed from the list, not retired.
 */
export function checkOperatorSignature(
  backend: Ed25519Backend,
  message: Uint8Array,
  signatureB58: unknown,
  keys: OperatorKeys,
  timestamp: unknown,
): OperatorSignatureCheck {
  if (checkEd25519(backend, message, signatureB58, keys.pubkey))
    return { ok: true, pubkey: keys.pubkey, retiredAt: null };
  for (const key of keys.retired) {
    if (!checkEd25519(backend, message, signatureB58, key.pubkey)) continue;
    const placed = typeof timestamp === "number" && Number.isSafeInteger(timestamp) && timestamp >= 0;
    if (!placed) return { ok: false, reason: "timestamp_missing", pubkey: key.pubkey, retiredAt: key.retired_at };
    if (timestamp >= key.retired_at)
      return { ok: false, reason: "signed_after_retirement", pubkey: key.pubkey, retiredAt: key.retired_at };
    return { ok: true, pubkey: key.pubkey, retiredAt: key.retired_at };
  }
  return { ok: false, reason: "signature_invalid", pubkey: keys.pubkey, retiredAt: null };
}

/** The largest instant a Date can hold (±8.64e15 ms); a later timestamp is written as a number. */
const MAX_DATE_MS = 8.64e15;

/** Unix ms as ISO 8601 UTC (`2026-05-01T00:00:00.000Z`), or the number itself beyond what a Date holds. */
export function formatUnixMs(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? new Date(ms).toISOString() : `${ms} ms`;
}
