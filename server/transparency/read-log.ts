// Serving the receipt log: the latest (or a given) checkpoint with the witness cosignatures it gathered, hash tiles and
// entry bundles (C2SP tlog-tiles) read from the stored hashes and entries, and a receipt's inclusion proof built from
// the stored subtree hashes (never by rehashing entries).
import "server-only";
import type { DbClient, DbTransaction } from "../db";
import { AppError } from "../errors";
import {
  encodeBase64,
  encodeEntryBundle,
  hashesAtTileLevel,
  proveInclusion,
  tileHashReader,
  TILE_HEIGHT,
  TILE_WIDTH,
  type HashReader,
  type ReceiptLogProof,
} from "../verify";
import type { LogIdentity } from "../keys/log-key";

/** Seconds a client should wait before asking again for a receipt not yet in a checkpoint: about one sequencer round. */
const LOG_PENDING_RETRY_AFTER_S = 2;

export interface StoredCheckpoint {
  size: number;
  /** The signed note: the log's signature, then each witness's cosignature line. */
  note: string;
}

/** The checkpoint of `size` (the latest when omitted), with its cosignatures appended; null when there is none. */
export async function readCheckpoint(db: DbClient, size?: number): Promise<StoredCheckpoint | null> {
  const row = await db.logCheckpoint.findFirst({
    where: size === undefined ? {} : { size: BigInt(size) },
    orderBy: { size: "desc" },
    select: { size: true, note: true, cosignatures: { select: { line: true }, orderBy: { witness: "asc" } } },
  });
  if (!row) return null;
  return { size: Number(row.size), note: row.note + row.cosignatures.map((c) => c.line).join("") };
}

/** The newest checkpoint carrying at least one witness cosignature; null when no witness has cosigned yet. */
async function readLatestCosignedCheckpoint(db: DbClient): Promise<StoredCheckpoint | null> {
  const row = await db.logCosignature.findFirst({ orderBy: { size: "desc" }, select: { size: true } });
  return row ? readCheckpoint(db, Number(row.size)) : null;
}

/** The published tree size: the latest checkpoint's (0 before the first). */
async function publishedSize(db: DbClient): Promise<number> {
  const row = await db.logCheckpoint.findFirst({ orderBy: { size: "desc" }, select: { size: true } });
  return row ? Number(row.size) : 0;
}

/**
 * The stored row of a tile: `width` hashes at tree height 8·level from hash number index·256 (only those heights are
 * stored; the heights between are rehashed from them). Null unless all are stored.
 */
async function readTileRows(
  db: DbClient | DbTransaction,
  level: number,
  index: number,
  width: number,
): Promise<Uint8Array | null> {
  const first = index * TILE_WIDTH;
  const rows = await db.$queryRaw<{ hash: Uint8Array }[]>`
    SELECT hash FROM log_hashes WHERE level = ${level * TILE_HEIGHT} AND idx >= ${first} AND idx < ${first + width} ORDER BY idx`;
  if (rows.length !== width) return null;
  const out = new Uint8Array(width * 32);
  rows.forEach((r, i) => out.set(r.hash, i * 32));
  return out;
}

/**
 * A hash tile's bytes: null when the published tree does not have them yet (a tile is served only once a checkpoint
 * covers it, and then never changes).
 */
export async function readHashTile(
  db: DbClient,
  level: number,
  index: number,
  width: number,
): Promise<Uint8Array | null> {
  if (index * TILE_WIDTH + width > hashesAtTileLevel(await publishedSize(db), level)) return null;
  return readTileRows(db, level, index, width);
}

/** An entry bundle's bytes (uint16 length-prefixed entries); null when the published tree does not have them yet. */
export async function readEntryBundle(db: DbClient, index: number, width: number): Promise<Uint8Array | null> {
  const first = index * TILE_WIDTH;
  if (first + width > (await publishedSize(db))) return null;
  const rows = await db.logEntry.findMany({
    where: { idx: { gte: BigInt(first), lt: BigInt(first + width) } },
    orderBy: { idx: "asc" },
    select: { entry: true },
  });
  if (rows.length !== width) return null;
  return encodeEntryBundle(rows.map((r) => new Uint8Array(r.entry)));
}

/** The stored tree of `size` leaves as a HashReader: proofs are built from its tiles, as any client builds them. */
export function storedHashReader(db: DbClient | DbTransaction, size: number): HashReader {
  return tileHashReader(size, async (tile) => {
    const data = await readTileRows(db, tile.level, tile.index, tile.width);
    if (!data) throw new Error(`log: tile ${tile.level}/${tile.index} of width ${tile.width} is not stored`);
    return data;
  });
}

export interface ProofRequest {
  /** Prove against the checkpoint of this size (it must exist and contain the entry). */
  treeSize?: number;
  /** Prove against the newest checkpoint a witness cosigned. */
  cosigned?: boolean;
}

/**
 * A receipt's inclusion proof against a signed checkpoint. 404 `not_found` for an unknown id; 409 `log_pending` with
 * Retry-After while it waits for the sequencer; 404 `not_found` (with `reason`) for a receipt the log never held.
 */
export async function proveReceiptInclusion(
  db: DbClient,
  id: LogIdentity,
  inferenceId: string,
  request: ProofRequest = {},
): Promise<ReceiptLogProof> {
  // One statement, so one snapshot: the sequencer moves an entry from staging to the tree in a transaction of its own.
  const [found] = await db.$queryRaw<{ idx: bigint | null; staged: boolean; receipt: boolean | null }[]>`
    SELECT (SELECT idx FROM log_entries WHERE inference_id = ${inferenceId}::uuid) AS idx,
           EXISTS (SELECT 1 FROM log_staging WHERE inference_id = ${inferenceId}::uuid) AS staged,
           (SELECT receipt IS NOT NULL FROM inference_logs WHERE id = ${inferenceId}::uuid) AS receipt`;
  if (found?.idx === null || found?.idx === undefined) {
    if (found?.staged) {
      throw new AppError(
        "log_pending",
        "the receipt is staged for the log but not yet in a signed checkpoint",
        { retry_after: LOG_PENDING_RETRY_AFTER_S },
        { "Retry-After": String(LOG_PENDING_RETRY_AFTER_S) },
      );
    }
    if (found?.receipt)
      throw new AppError(
        "not_found",
        "this receipt was issued before the receipt log existed: it has no inclusion proof",
        { reason: "not_logged" },
      );
    throw new AppError("not_found", "no receipt with that id");
  }
  const index = Number(found.idx);
  const checkpoint = request.cosigned
    ? await readLatestCosignedCheckpoint(db)
    : await readCheckpoint(db, request.treeSize);
  if (!checkpoint) {
    throw request.treeSize !== undefined || request.cosigned
      ? new AppError(
          "not_found",
          request.cosigned ? "no checkpoint has a witness cosignature yet" : "no checkpoint of that tree size",
        )
      : new AppError(
          "log_pending",
          "the receipt is not yet in a signed checkpoint",
          { retry_after: LOG_PENDING_RETRY_AFTER_S },
          { "Retry-After": String(LOG_PENDING_RETRY_AFTER_S) },
        );
  }
  if (index >= checkpoint.size) {
    if (request.treeSize !== undefined)
      throw new AppError(
        "invalid_request",
        `the receipt is at index ${index}, not in the tree of size ${checkpoint.size}`,
      );
    throw new AppError(
      "log_pending",
      "the receipt is not yet in a witnessed checkpoint",
      { retry_after: LOG_PENDING_RETRY_AFTER_S },
      { "Retry-After": String(LOG_PENDING_RETRY_AFTER_S) },
    );
  }
  const proof = await proveInclusion(index, checkpoint.size, storedHashReader(db, checkpoint.size));
  return {
    log_index: index,
    tree_size: checkpoint.size,
    inclusion_proof: proof.map(encodeBase64),
    checkpoint: checkpoint.note,
    log_key: id.verifierKey,
  };
}

/**
 * The log's public identity: `GET /log/key` and discovery. `previous_verifier_key`: during a key rotation, the old key,
 * which co-signs every checkpoint until the rotation ends; null otherwise.
 */
export function logKeyResource(id: LogIdentity): {
  origin: string;
  verifier_key: string;
  previous_verifier_key: string | null;
  algorithm: "ed25519";
  witnesses: string[];
  checkpoint_url: string;
} {
  return {
    origin: id.origin,
    verifier_key: id.verifierKey,
    previous_verifier_key: id.previous?.verifierKey ?? null,
    algorithm: "ed25519",
    witnesses: id.witnesses.map((w) => `${w.name}+${w.keyId.toString(16).padStart(8, "0")}`),
    checkpoint_url: "/log/checkpoint",
  };
}
