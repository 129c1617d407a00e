// A served call's signed receipt, stored on its log row for `GET /api/v1/receipts/<id>` and staged for the public
// receipt log by the same statement. The ledger never signs: the caller signs with the facts capture returned, and
// hands the receipt here.
import "server-only";
import { Prisma, type DbClient } from "../db";
import type { Receipt } from "../receipts/receipt-types";
import { hotQuery } from "../db/hot-query";
import { encodeReceiptEntry, MAX_ENTRY_BYTES } from "../verify";

/**
 * Stores the receipt on the log row and stages its log entry, in ONE statement; throws when that did not happen.
 * SECURITY: no receipt is served unlogged: the caller serves the receipt only once this returned. Idempotent: sent
 * again after an answer was lost, it stages nothing twice.
 */
export async function attachReceipt(db: DbClient, inferenceId: string, receipt: Receipt): Promise<void> {
  const entry = encodeReceiptEntry(receipt as unknown as Record<string, unknown>);
  if (entry.length > MAX_ENTRY_BYTES) throw new Error(`receipt log entry of ${entry.length} bytes is above the log's ${MAX_ENTRY_BYTES}`);
  const rows = await hotQuery<{ stored: bigint }>(
    db,
    Prisma.sql`WITH stored AS (UPDATE inference_logs SET receipt = ${JSON.stringify(receipt)}::jsonb WHERE id = ${inferenceId}::uuid RETURNING id),
      staged AS (INSERT INTO log_staging (inference_id, entry) SELECT id, ${Buffer.from(entry)} FROM stored ON CONFLICT (inference_id) DO NOTHING)
      SELECT count(*) AS stored FROM stored`,
  );
  if (Number(rows[0]?.stored ?? 0) !== 1) throw new Error(`receipt of ${inferenceId} was not stored: no log row`);
}
