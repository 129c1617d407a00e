// The public receipt permalink: the stored receipt JSON by inference id or by transaction
// signature. Prompt and response text are never stored, so never returned.
import "server-only";
import type { DbClient } from "../db";
import { AppError } from "../errors";
import { decodeBase58 } from "../verify";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVM_TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** The receipt with this inference id or tx signature; 404 `not_found` for anything else. */
export async function findReceipt(db: DbClient, id: string): Promise<unknown> {
  let row: { receipt: unknown } | null = null;
  if (UUID.test(id)) {
    row = await db.inferenceLog.findUnique({ where: { id: id.toLowerCase() }, select: { receipt: true } });
  } else if (decodeBase58(id, 64) || EVM_TX_HASH.test(id)) {
    row = await db.inferenceLog.findFirst({
      where: { txSignature: id },
      select: { receipt: true },
      orderBy: { createdAt: "desc" },
    });
  }
  if (!row || row.receipt === null) throw new AppError("not_found", "no receipt with that id or transaction signature");
  return row.receipt;
}
