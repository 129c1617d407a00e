// Reconciling the money, not only the chain: read-only checks of the ledger against the receipts, payments and holds
// of one network. Each finding is a mismatch; any mismatch is drift.
// - charge_mismatch: a served call's receipt states a cost other than what the ledger charged for it;
// - cost_exceeds_hold: the upstream's cost ran past the call's hold (charged the hold; the rest was never paid);
// - receipt_missing: a served call whose signed receipt was never stored;
// - credit_not_reserved: a paid call's credit is spendable (no hold, or its hold was released) while its payment can
//   still be served, or was: the same money would be both spent and available (a refunded payment's is, on purpose);
// - hold_state_mismatch: a paid call's hold and payment disagree (served with an open hold, captured but not served,
//   or refunded with its hold not released);
// - hold_lease_expired: an open hold whose server's lease ran out (it died mid-call and nothing finished it);
// - balance_drift: a balance that is not the sum of its ledger entries.
import "server-only";
import { Prisma, type DbClient } from "../db";
import { usdcNumberToUnits } from "../verify";
import { LANDED_STATES, STATE } from "../ledger/payment-states";

export type MoneyMismatchKind =
  | "charge_mismatch"
  | "cost_exceeds_hold"
  | "receipt_missing"
  | "credit_not_reserved"
  | "hold_state_mismatch"
  | "hold_lease_expired"
  | "balance_drift";

export interface MoneyMismatch {
  kind: MoneyMismatchKind;
  /** The call's settlement transaction, or which row the finding is about. */
  transaction: string;
  detail: string;
}

/** Ledger kinds that move money into or out of a call's hold (and the debit of calls served before holds). */
const CALL_ENTRY_KINDS = ["hold", "hold_release", "inference_debit"];

/** Every money check for one network (CAIP-2 id). Calls and payments since `since`; balances always whole. */
export async function checkMoney(
  db: DbClient,
  network: string,
  leaseMs: number,
  since: Date | null,
): Promise<MoneyMismatch[]> {
  return [
    ...(await checkCharges(db, network, since)),
    ...(await checkPaidCredits(db, network, since)),
    ...(await checkOpenHolds(db, network, leaseMs)),
    ...(await checkBalances(db, network)),
  ];
}

async function checkCharges(db: DbClient, network: string, since: Date | null): Promise<MoneyMismatch[]> {
  const rows = await db.$queryRaw<
    {
      id: string;
      status: string;
      tx_signature: string | null;
      receipt_cost: string | null;
      has_receipt: boolean;
      upstream_cost: bigint | null;
      charged: bigint;
    }[]
  >`
    SELECT l.id::text, l.status, l.tx_signature, l.receipt->>'cost_usdc' AS receipt_cost, l.receipt IS NOT NULL AS has_receipt,
           l.upstream_cost_units AS upstream_cost,
           COALESCE((SELECT -SUM(e.units) FROM ledger_entries e WHERE e.inference_id = l.id AND e.kind = ANY(${CALL_ENTRY_KINDS})), 0)::bigint AS charged
    FROM inference_logs l
    WHERE l.network = ${network} AND (${since}::timestamptz IS NULL OR l.created_at >= ${since}::timestamptz)`;
  const found: MoneyMismatch[] = [];
  for (const row of rows) {
    const where = row.tx_signature ?? `(inference ${row.id})`;
    const charged = BigInt(row.charged);
    if (row.upstream_cost !== null && BigInt(row.upstream_cost) > charged) {
      found.push({
        kind: "cost_exceeds_hold",
        transaction: where,
        detail: `inference ${row.id}: the upstream cost ${row.upstream_cost} units, the ledger charged ${charged}`,
      });
    }
    if (row.status !== STATE.served) continue;
    if (!row.has_receipt) {
      found.push({
        kind: "receipt_missing",
        transaction: where,
        detail: `inference ${row.id} was served with no stored receipt`,
      });
      continue;
    }
    const stated = row.receipt_cost === null ? null : usdcNumberToUnits(Number(row.receipt_cost));
    if (stated === null || stated !== charged) {
      found.push({
        kind: "charge_mismatch",
        transaction: where,
        detail: `inference ${row.id}: the receipt states ${stated ?? row.receipt_cost} units, the ledger charged ${charged}`,
      });
    }
  }
  return found;
}

async function checkPaidCredits(db: DbClient, network: string, since: Date | null): Promise<MoneyMismatch[]> {
  const rows = await db.$queryRaw<
    {
      id: string;
      status: string;
      tx_signature: string | null;
      units: bigint;
      hold_status: string | null;
      hold_units: bigint | null;
      legacy_debit: boolean;
    }[]
  >`
    SELECT p.id::text, p.status, p.tx_signature, p.units, h.status AS hold_status, h.units AS hold_units,
           EXISTS (SELECT 1 FROM ledger_entries e WHERE p.inference_id IS NOT NULL AND e.inference_id = p.inference_id AND e.kind = 'inference_debit') AS legacy_debit
    FROM payments p LEFT JOIN credit_holds h ON h.payment_id = p.id
    WHERE p.network = ${network} AND p.purpose = 'call' AND p.status IN (${Prisma.join([...LANDED_STATES])})
      AND (${since}::timestamptz IS NULL OR p.created_at >= ${since}::timestamptz)`;
  const found: MoneyMismatch[] = [];
  for (const p of rows) {
    const where = p.tx_signature ?? `(payment ${p.id})`;
    // A call served before calls had holds was debited directly; its credit was spent by that debit.
    if (p.hold_status === null && p.status === STATE.served && p.legacy_debit) continue;
    // A refunded payment's credit was returned on purpose (its call could not be recorded): its hold is released.
    if (p.status === STATE.refunded) {
      if (p.hold_status !== "released")
        found.push({
          kind: "hold_state_mismatch",
          transaction: where,
          detail: `payment ${p.id} is refunded while its hold is ${p.hold_status ?? "missing"}`,
        });
      continue;
    }
    if (p.hold_status === null || p.hold_status === "released") {
      found.push({
        kind: "credit_not_reserved",
        transaction: where,
        detail: `payment ${p.id} (${p.status}): its credit is spendable (${p.hold_status === null ? "no hold" : "hold released"})`,
      });
    } else if (BigInt(p.hold_units!) !== BigInt(p.units)) {
      found.push({
        kind: "credit_not_reserved",
        transaction: where,
        detail: `payment ${p.id}: hold of ${p.hold_units} units for a payment of ${p.units}`,
      });
    } else if ((p.status === STATE.served) !== (p.hold_status === "captured")) {
      found.push({
        kind: "hold_state_mismatch",
        transaction: where,
        detail: `payment ${p.id} is ${p.status} while its hold is ${p.hold_status}`,
      });
    }
  }
  return found;
}

async function checkOpenHolds(db: DbClient, network: string, leaseMs: number): Promise<MoneyMismatch[]> {
  const rows = await db.$queryRaw<
    { id: string; payment_id: string | null; payment_status: string | null; tx_signature: string | null }[]
  >`
    SELECT h.id::text, h.payment_id::text, p.status AS payment_status, p.tx_signature
    FROM credit_holds h LEFT JOIN payments p ON p.id = h.payment_id
    WHERE h.network = ${network} AND h.status = 'held' AND (
      (h.payment_id IS NULL AND h.lease_expires_at < now())
      OR (p.status IN (${STATE.settled}, ${STATE.serving}) AND p.updated_at < now() - make_interval(secs => ${leaseMs}::double precision / 1000))
    )`;
  // An unserved payment's hold is open on purpose: it waits for that payment's retry, with no lease.
  return rows.map((h) => ({
    kind: "hold_lease_expired" as const,
    transaction: h.tx_signature ?? `(hold ${h.id})`,
    detail: h.payment_id
      ? `hold ${h.id} of payment ${h.payment_id} (${h.payment_status}): its server's lease ran out`
      : `prepaid hold ${h.id}: its server's lease ran out`,
  }));
}

async function checkBalances(db: DbClient, network: string): Promise<MoneyMismatch[]> {
  const rows = await db.$queryRaw<{ agent: string; balance: bigint | null; ledger: bigint | null }[]>`
    WITH sums AS (SELECT agent_pubkey, SUM(units)::bigint AS ledger FROM ledger_entries WHERE network = ${network} GROUP BY agent_pubkey)
    SELECT COALESCE(b.agent_pubkey, s.agent_pubkey) AS agent, b.units AS balance, s.ledger
    FROM (SELECT agent_pubkey, units FROM balances WHERE network = ${network}) b FULL OUTER JOIN sums s ON s.agent_pubkey = b.agent_pubkey
    WHERE COALESCE(b.units, 0) <> COALESCE(s.ledger, 0)`;
  return rows.map((r) => ({
    kind: "balance_drift" as const,
    transaction: `(agent ${r.agent})`,
    detail: `balance ${r.balance ?? 0} units, ledger entries sum to ${r.ledger ?? 0}`,
  }));
}
