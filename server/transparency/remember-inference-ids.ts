// What the log monitor remembers of the entries it verified, to catch an inference logged again in a later round: a
// 16-byte fingerprint (SHA-256, truncated) of the inference id of each of the last MONITOR_REMEMBERED_ENTRIES entries,
// in log order, so a fingerprint's position gives the index of the entry it came from.
import "server-only";
import { createHash } from "node:crypto";

/**
 * How many of the latest entries' inference ids a monitor remembers between rounds: a duplicate is caught when its
 * original is among them, and missed when the original is older. 2^20 entries keep 16 MiB of fingerprints (about
 * 22 MB of base64 in the state file) and take about 0.1 s to scan per round.
 */
const MONITOR_REMEMBERED_ENTRIES = 1_048_576;

/**
 * Bytes kept per inference id. Two different ids share a fingerprint with probability 2^-128 a pair: a collision could
 * only report a duplicate that is not one, never hide one.
 */
const FINGERPRINT_BYTES = 16;

/** The fingerprints of the inference ids of the entries [size - n, size), oldest first (n = bytes / 16). */
export interface RememberedIds {
  /** The log size they end at: the size the monitor last verified. */
  size: number;
  fingerprints: Uint8Array;
}

/** An entry read this round whose inference id was logged before, at `firstIndex`. */
interface RepeatedInference {
  index: number;
  inferenceId: string;
  firstIndex: number;
}

/** The fingerprint of an inference id: the first 16 bytes of the SHA-256 of its UTF-8 bytes. */
export function inferenceFingerprint(inferenceId: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(inferenceId, "utf8").digest().subarray(0, FINGERPRINT_BYTES));
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/**
 * Each entry of `fresh` (this round's, in log order) whose inference id is remembered or appears earlier in `fresh`,
 * with the index it was first logged at (the oldest one known).
 */
export function findRepeatedInferences(
  remembered: RememberedIds,
  fresh: readonly { index: number; inferenceId: string }[],
): RepeatedInference[] {
  const freshKeys = fresh.map((e) => hex(inferenceFingerprint(e.inferenceId)));
  const wanted = new Set(freshKeys);
  // A scan of the window compares the 4-byte prefix first: a full comparison only where it matches a fresh one.
  const prefixes = new Set(freshKeys.map((key) => Number.parseInt(key.slice(0, 8), 16)));
  const view = new DataView(
    remembered.fingerprints.buffer,
    remembered.fingerprints.byteOffset,
    remembered.fingerprints.byteLength,
  );
  const count = remembered.fingerprints.length / FINGERPRINT_BYTES;
  const firstAt = new Map<string, number>();
  for (let p = 0; p < count; p++) {
    if (!prefixes.has(view.getUint32(p * FINGERPRINT_BYTES))) continue;
    const key = hex(remembered.fingerprints.subarray(p * FINGERPRINT_BYTES, (p + 1) * FINGERPRINT_BYTES));
    if (wanted.has(key) && !firstAt.has(key)) firstAt.set(key, remembered.size - count + p);
  }
  const repeats: RepeatedInference[] = [];
  fresh.forEach((entry, i) => {
    const key = freshKeys[i]!;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, entry.index);
    else repeats.push({ index: entry.index, inferenceId: entry.inferenceId, firstIndex: first });
  });
  return repeats;
}

/**
 * The window after a round that verified the entries [remembered.size, remembered.size + ids.length), given as their
 * inference ids in log order: their fingerprints appended, the oldest dropped beyond `limit` entries.
 */
export function rememberInferences(
  remembered: RememberedIds,
  ids: readonly string[],
  limit = MONITOR_REMEMBERED_ENTRIES,
): RememberedIds {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new RangeError("the remembered window is a whole number of entries");
  const kept = Math.min(limit, remembered.fingerprints.length / FINGERPRINT_BYTES + ids.length);
  const out = new Uint8Array(kept * FINGERPRINT_BYTES);
  const fromFresh = Math.min(kept, ids.length);
  const fromOld = kept - fromFresh;
  out.set(remembered.fingerprints.subarray(remembered.fingerprints.length - fromOld * FINGERPRINT_BYTES), 0);
  ids
    .slice(ids.length - fromFresh)
    .forEach((id, i) => out.set(inferenceFingerprint(id), (fromOld + i) * FINGERPRINT_BYTES));
  return { size: remembered.size + ids.length, fingerprints: out };
}

/** The window as the monitor's state file keeps it: its fingerprints in base64. */
export function encodeRemembered(remembered: RememberedIds): string {
  return Buffer.from(
    remembered.fingerprints.buffer,
    remembered.fingerprints.byteOffset,
    remembered.fingerprints.byteLength,
  ).toString("base64");
}

/**
 * The window a state file of log size `size` keeps; none remembered when it keeps none (a state written before the
 * monitor remembered ids). Null when the text is not canonical base64 of whole fingerprints, or holds more than `size`.
 */
export function decodeRemembered(text: unknown, size: number): RememberedIds | null {
  if (text === undefined) return { size, fingerprints: new Uint8Array(0) };
  if (typeof text !== "string") return null;
  const bytes = Buffer.from(text, "base64");
  if (
    bytes.toString("base64") !== text ||
    bytes.length % FINGERPRINT_BYTES !== 0 ||
    bytes.length / FINGERPRINT_BYTES > size
  )
    return null;
  return { size, fingerprints: new Uint8Array(bytes) };
}
