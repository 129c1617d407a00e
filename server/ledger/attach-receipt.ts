// A served call's signed receipt, stored on its log row for `GET /api/v1/receipts/<id>`. The ledger never signs: the
// caller signs with the facts capture returned, and hands the receipt here.
import "server-only";
import { Prisma, type DbClient } from "../db";
import { logEvent } from "../log";
import type { Receipt } from "../receipts/receipt-types";
import { hotExecute } from "../db/hot-query";

/** Stores the receipt on the log row. The money is already recorded: a failure is logged, never thrown. */
export async function attachReceipt(db: DbClient, inferenceId: string, receipt: Receipt): Promise<void> {
  try {
    await hotExecute(db, Prisma.sql`UPDATE inference_logs SET receipt = ${JSON.stringify(receipt)}::jsonb WHERE id = ${inferenceId}::uuid`);
  } catch (err) {
    logEvent("receipt.store_failed", { inference_id: inferenceId, reason: err instanceof Error ? err.message.slice(0, 200) : "unknown" }, "error");
  }
}
