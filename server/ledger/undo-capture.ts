// Undoing a captured call whose receipt could not be stored and logged: the call was never served, so its money goes
// back to where an upstream failure would have left it. A prepaid hold is released whole (nothing charged); a paid
// call's hold is reserved again in full and its payment is `unserved`, so one retry with the same payment header serves
// it. One statement, and only while the call has no stored receipt: a receipt that was stored is served, never undone.
import "server-only";
import { Prisma, type DbClient } from "../db";
import { hotQuery } from "../db/hot-query";
import { unservedPaymentStatement } from "../payments/payment-row-statements";

export type UndoCaptureOutcome =
  | { undone: true; balanceUnits: bigint }
  /** Nothing changed: the receipt was stored after all, the hold was not captured, or (paid) the change it returned was spent. */
  | { undone: false };

/** Reverts the capture of `holdId` (see the module comment). */
export async function undoCapture(db: DbClient, holdId: string, reason: string): Promise<UndoCaptureOutcome> {
  const rows = await hotQuery<{ balance: bigint }>(db, Prisma.sql`
    WITH agent AS (
      -- The agent's points row first, as every capture takes it: an undo and a capture never wait on each other crosswise.
      SELECT a.pubkey FROM agents a JOIN credit_holds h ON h.agent_pubkey = a.pubkey WHERE h.id = ${holdId}::uuid FOR UPDATE OF a
    ), undo AS (
      SELECT h.id, h.agent_pubkey, h.network, h.units, h.charged_units, h.payment_id,
             CASE WHEN h.payment_id IS NULL THEN h.charged_units ELSE -(h.units - h.charged_units) END AS delta
      FROM credit_holds h JOIN inference_logs l ON l.id = h.id
      WHERE h.id = ${holdId}::uuid AND h.status = 'captured' AND l.receipt IS NULL AND h.agent_pubkey IN (SELECT pubkey FROM agent)
    ), moved AS (
      -- Prepaid: the charged cost comes back. Paid: the change capture returned is reserved again, if still there.
      UPDATE balances b SET units = b.units + u.delta, updated_at = now() FROM undo u
      WHERE b.agent_pubkey = u.agent_pubkey AND b.network = u.network AND b.units + u.delta >= 0
      RETURNING b.units
    ), hold AS (
      UPDATE credit_holds h SET status = CASE WHEN u.payment_id IS NULL THEN 'released' ELSE 'held' END,
             settled_at = CASE WHEN u.payment_id IS NULL THEN now() ELSE NULL END,
             charged_units = NULL
      FROM undo u WHERE h.id = u.id AND h.status = 'captured' AND EXISTS (SELECT 1 FROM moved)
      RETURNING h.id
    ), logged AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT u.agent_pubkey, u.network, CASE WHEN u.payment_id IS NULL THEN 'hold_release' ELSE 'hold' END, u.delta, u.id
      FROM undo u WHERE u.delta <> 0 AND EXISTS (SELECT 1 FROM moved)
    ), payment AS (${unservedPaymentStatement("undo", "moved", reason)}
    ), points AS (
      UPDATE agents a SET points_total = a.points_total - 1 FROM undo u WHERE a.pubkey = u.agent_pubkey AND EXISTS (SELECT 1 FROM moved)
    ), call AS (
      DELETE FROM inference_logs l USING undo u WHERE l.id = u.id AND l.receipt IS NULL AND EXISTS (SELECT 1 FROM moved)
    )
    SELECT (SELECT units FROM moved) AS balance FROM hold`);
  const row = rows[0];
  return row ? { undone: true, balanceUnits: BigInt(row.balance) } : { undone: false };
}
