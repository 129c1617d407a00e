// The receipt log's checkpoints (c2sp.org/tlog-checkpoint: origin, tree size, base64 root) and entries, and the one
// check a receipt holder runs: is this receipt in the log, under a checkpoint the log key (and, if asked, a quorum of
// witnesses) signed? Pure and browser-safe.
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";
import { verifyEd25519Noble, type Ed25519Backend } from "./ed25519";
import { HASH_SIZE, leafHash, verifyConsistency, verifyInclusion } from "./merkle-tree";
import {
  decodeBase64,
  encodeBase64,
  findKeySignature,
  parseSignedNote,
  parseVerifierKey,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  type ParsedNote,
} from "./signed-note";

/** The first line of every entry: names the encoding, so a future one can never be read as this one. */
export const RECEIPT_ENTRY_TAG = "signet-receipt/v1";

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/** The checkpoint's note text: origin, size and base64 root, each on its own line. */
export function formatCheckpointText(cp: Checkpoint): string {
  return `${cp.origin}\n${cp.size}\n${encodeBase64(cp.root)}\n`;
}

/** Parses a checkpoint's note text; null unless it is origin, canonical decimal size, a 32-byte base64 root (extension lines allowed). */
export function parseCheckpointText(text: string): Checkpoint | null {
  if (!text.endsWith("\n")) return null;
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3 || lines.some((l) => l === "")) return null;
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) return null;
  const root = decodeBase64(rootText);
  if (!root || root.length !== HASH_SIZE) return null;
  return { origin, size: Number(sizeText), root };
}

/**
 * A receipt's log entry: the tag line, the canonical JSON of the receipt without `service_signature` (exactly the bytes
 * the operator signed; canonical JSON never holds a raw newline), a newline, and the base58 `service_signature`.
 */
export function encodeReceiptEntry(receipt: Record<string, unknown>): Uint8Array {
  const { service_signature: signature, ...unsigned } = receipt;
  if (typeof signature !== "string" || signature === "")
    throw new TypeError("a logged receipt carries its service_signature");
  return utf8ToBytes(`${RECEIPT_ENTRY_TAG}\n${canonicalJson(unsigned)}\n${signature}`);
}

/** Reads an entry back into its receipt; null if it is not a receipt entry. */
export function decodeReceiptEntry(
  entry: Uint8Array,
): { receipt: Record<string, unknown>; signedBytes: Uint8Array } | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(entry);
  } catch {
    return null;
  }
  const lines = text.split("\n");
  if (lines.length !== 3 || lines[0] !== RECEIPT_ENTRY_TAG) return null;
  let unsigned: unknown;
  try {
    unsigned = JSON.parse(lines[1]!);
  } catch {
    return null;
  }
  if (typeof unsigned !== "object" || unsigned === null || Array.isArray(unsigned) || "service_signature" in unsigned)
    return null;
  // The stored bytes must be the canonical form: one receipt, one entry.
  if (canonicalJson(unsigned) !== lines[1]) return null;
  return {
    receipt: { ...(unsigned as Record<string, unknown>), service_signature: lines[2] },
    signedBytes: utf8ToBytes(lines[1]!),
  };
}

export type CheckpointFailure =
  | "malformed_checkpoint"
  | "bad_log_key"
  | "log_signature_missing"
  | "log_signature_invalid"
  | "origin_mismatch"
  | "witness_signature_invalid"
  | "witness_quorum_not_met";

export interface OpenCheckpointOptions {
  /**
   * The log's verifier key (`<name>+<id>+<base64>`); or, while the log rotates its key, both keys (one name: the
   * origin): a checkpoint either signed verifies, and a signature by any of them that fails rejects it.
   */
  logKey: string | readonly string[];
  /** The expected origin; by default the log key's name (the log signs under its origin). */
  origin?: string;
  /** Witness cosigner keys (type 0x04) this verifier knows. */
  witnesses?: readonly string[];
  /** How many of `witnesses` must have cosigned; 0 by default. */
  quorum?: number;
  ed25519?: Ed25519Backend;
}

export type OpenedCheckpoint =
  | {
      ok: true;
      checkpoint: Checkpoint;
      note: ParsedNote;
      logKeyName: string;
      cosignedBy: { name: string; timestamp: number }[];
    }
  | { ok: false; reason: CheckpointFailure };

/** Verifies a signed checkpoint: its log signature, its origin, and the witness quorum asked for. */
export function openCheckpoint(noteText: string, opts: OpenCheckpointOptions): OpenedCheckpoint {
  const backend = opts.ed25519 ?? verifyEd25519Noble;
  const keys = (typeof opts.logKey === "string" ? [opts.logKey] : [...opts.logKey]).map(parseVerifierKey);
  // One log, one name: keys of two names would be two logs.
  if (keys.length === 0 || keys.some((k) => !k || k.type !== SIG_ED25519 || k.name !== keys[0]!.name))
    return { ok: false, reason: "bad_log_key" };
  const key = keys[0]!;
  const note = parseSignedNote(noteText);
  const checkpoint = note ? parseCheckpointText(note.text) : null;
  if (!note || !checkpoint) return { ok: false, reason: "malformed_checkpoint" };
  const signed = keys.map((k) => findKeySignature(note, k!, backend));
  if (signed.includes("invalid")) return { ok: false, reason: "log_signature_invalid" };
  if (signed.every((s) => s === "absent")) return { ok: false, reason: "log_signature_missing" };
  if (checkpoint.origin !== (opts.origin ?? key.name)) return { ok: false, reason: "origin_mismatch" };
  const cosignedBy: { name: string; timestamp: number }[] = [];
  for (const vkey of opts.witnesses ?? []) {
    const witness = parseVerifierKey(vkey);
    if (!witness || witness.type !== SIG_COSIGNATURE_V1) return { ok: false, reason: "bad_log_key" };
    const check = findKeySignature(note, witness, backend);
    if (check === "invalid") return { ok: false, reason: "witness_signature_invalid" };
    if (check !== "absent") cosignedBy.push({ name: witness.name, timestamp: Number(check.timestamp ?? 0n) });
  }
  if (cosignedBy.length < (opts.quorum ?? 0)) return { ok: false, reason: "witness_quorum_not_met" };
  return { ok: true, checkpoint, note, logKeyName: key.name, cosignedBy };
}

/** What `GET /api/v1/receipts/<id>/proof` answers. Hashes are base64. */
export interface ReceiptLogProof {
  log_index: number;
  tree_size: number;
  inclusion_proof: string[];
  /** The signed checkpoint (note text) of `tree_size`. */
  checkpoint: string;
  /** The log's verifier key, for convenience only: a verifier pins its own. */
  log_key?: string;
}

export type InclusionFailure = CheckpointFailure | "malformed_proof" | "size_mismatch" | "not_included";

export type ReceiptInclusionResult =
  | { ok: true; index: number; treeSize: number; logKeyName: string; cosignedBy: { name: string; timestamp: number }[] }
  | { ok: false; reason: InclusionFailure };

/** Checks that `receipt` is the entry at `proof.log_index` of the tree its signed checkpoint commits to. */
export function verifyReceiptInclusion(
  receipt: Record<string, unknown>,
  proof: ReceiptLogProof,
  opts: OpenCheckpointOptions,
): ReceiptInclusionResult {
  const opened = openCheckpoint(typeof proof?.checkpoint === "string" ? proof.checkpoint : "", opts);
  if (!opened.ok) return opened;
  if (!Array.isArray(proof.inclusion_proof)) return { ok: false, reason: "malformed_proof" };
  const hashes = proof.inclusion_proof.map((h) => (typeof h === "string" ? decodeBase64(h) : null));
  if (hashes.some((h) => h === null || h.length !== HASH_SIZE)) return { ok: false, reason: "malformed_proof" };
  if (proof.tree_size !== opened.checkpoint.size) return { ok: false, reason: "size_mismatch" };
  let entry: Uint8Array;
  try {
    entry = encodeReceiptEntry(receipt);
  } catch {
    return { ok: false, reason: "not_included" };
  }
  if (
    !verifyInclusion(proof.log_index, proof.tree_size, leafHash(entry), hashes as Uint8Array[], opened.checkpoint.root)
  ) {
    return { ok: false, reason: "not_included" };
  }
  return {
    ok: true,
    index: proof.log_index,
    treeSize: proof.tree_size,
    logKeyName: opened.logKeyName,
    cosignedBy: opened.cosignedBy,
  };
}

/** Checks that checkpoint `older` is a prefix of checkpoint `newer` by a consistency proof of base64 hashes. */
export function checkpointsConsistent(older: Checkpoint, newer: Checkpoint, proof: readonly string[]): boolean {
  const hashes = proof.map((h) => decodeBase64(h));
  if (hashes.some((h) => h === null)) return false;
  return verifyConsistency(older.size, newer.size, older.root, newer.root, hashes as Uint8Array[]);
}
