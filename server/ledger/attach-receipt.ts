// A served call's signed receipt, stored on its log row for `GET /api/v1/receipts/<id>` and staged for the public
// receipt log by the same statement. The ledger never signs: the caller signs with the facts capture returned, and
// hands the receipt here.
import "server-only";
import { Prisma, type DbClient } from "../db";
import type { Receipt } from "../receipts/receipt-types";
import { hotQuery } from "../db/hot-query";
import { MAX_ENTRY_BYTES } from "../verify";

/** Bytes a log entry adds around the receipt's JSON: its tag line and the newlines (the JSON bounds the rest). */
const ENTRY_OVERHEAD_BYTES = 32;

/**
 * Whether a receipt (its JSON) fits one log entry: an entry is at most MAX_ENTRY_BYTES (entry bundles prefix it with a
 * uint16 length), and its canonical form is no longer than this JSON.
 */
export function receiptFitsLog(json: string): boolean {
  return Buffer.byteLength(json) + ENTRY_OVERHEAD_BYTES <= MAX_ENTRY_BYTES;
}

/**
 * Stores the receipt on the log row and stages it for the public log, in ONE statement; throws when that did not
 * happen. The sequencer encodes the entry from the stored receipt (the same canonical bytes that were signed).
 * SECURITY: no receipt is served unlogged: the caller serves the receipt only once this returned. Safe to send again
 * after a lost answer: the sequencer logs a receipt once.
 */
export async function attachReceipt(db: DbClient, inferenceId: string, receipt: Receipt): Promise<void> {
  const json = JSON.stringify(receipt);
  if (!receiptFitsLog(json)) throw new Error(`receipt of ${inferenceId} is too large for a log entry`);
  const rows = await hotQuery<{ stored: bigint }>(
    db,
    Prisma.sql`WITH stored AS (UPDATE inference_logs SET receipt = ${json}::jsonb WHERE id = ${inferenceId}::uuid RETURNING id),
      staged AS (INSERT INTO log_staging (inference_id) SELECT id FROM stored)
      SELECT count(*) AS stored FROM stored`,
  );
  if (Number(rows[0]?.stored ?? 0) !== 1) throw new Error(`receipt of ${inferenceId} was not stored: no log row`);
}
