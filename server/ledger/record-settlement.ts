// Step 4 of the seed's paid call: credit the ledger by the amount paid, in ONE transaction with the payment's move
// to `settled`. The (payment_id, kind) unique key makes the credit exactly-once even if this runs twice.
import type { DbClient, DbTransaction } from "../db";
import type { PaymentStatus } from "./payment-records";

export interface SettlementFacts {
  paymentId: string;
  txSignature: string;
  agentPubkey: string;
  network: string;
  units: bigint;
  /** A top-up is served by the credit itself; a chat payment is served later by its inference. */
  servedByCredit?: boolean;
}

/** Marks the payment settled and credits the payer; returns the payer's new balance on that network. */
export async function recordSettlement(db: DbClient, facts: SettlementFacts): Promise<bigint> {
  const status: PaymentStatus = facts.servedByCredit ? "served" : "settled";
  const kind = facts.servedByCredit ? "topup_credit" : "payment_credit";
  // One atomic statement, one round trip (issue #7's profile: queries per money step). Every write hangs off the
  // payment's move out of `claimed`, so a second run of it (or a race) credits nothing.
  const rows = await db.$queryRaw<{ moved: bigint; balance: bigint | null }[]>`
    WITH moved AS (
      UPDATE payments SET status = ${status}, tx_signature = ${facts.txSignature}, updated_at = now()
      WHERE id = ${facts.paymentId}::uuid AND status = 'claimed'
      RETURNING id
    ), agent AS (
      INSERT INTO agents (pubkey) SELECT ${facts.agentPubkey} FROM moved ON CONFLICT (pubkey) DO NOTHING
    ), credit AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, payment_id)
      SELECT ${facts.agentPubkey}, ${facts.network}, ${kind}, ${facts.units}, id FROM moved
    ), balance AS (
      INSERT INTO balances (agent_pubkey, network, units, updated_at) SELECT ${facts.agentPubkey}, ${facts.network}, ${facts.units}, now() FROM moved
      ON CONFLICT (agent_pubkey, network) DO UPDATE SET units = balances.units + EXCLUDED.units, updated_at = now()
      RETURNING units
    )
    SELECT (SELECT count(*) FROM moved) AS moved, (SELECT units FROM balance) AS balance`;
  const row = rows[0];
  if (!row || Number(row.moved) !== 1 || row.balance === null) throw new Error(`payment ${facts.paymentId} was not in the claimed state`);
  return BigInt(row.balance);
}

/** Adds `units` (> 0) to a balance, creating it; returns the new balance. Call inside a transaction. */
export async function creditBalance(tx: DbTransaction, agentPubkey: string, network: string, units: bigint): Promise<bigint> {
  // INSERT … ON CONFLICT: atomic, where Prisma's upsert (select, then insert) races on an agent's first credit.
  const rows = await tx.$queryRaw<{ units: bigint }[]>`
    INSERT INTO "balances" ("agent_pubkey", "network", "units", "updated_at") VALUES (${agentPubkey}, ${network}, ${units}, CURRENT_TIMESTAMP)
    ON CONFLICT ("agent_pubkey", "network") DO UPDATE SET "units" = "balances"."units" + EXCLUDED."units", "updated_at" = CURRENT_TIMESTAMP
    RETURNING "units"`;
  return BigInt(rows[0]!.units);
}

/** The spendable balance of an agent on a network (0 when none). */
export async function getBalance(db: DbClient, agentPubkey: string, network: string): Promise<bigint> {
  const row = await db.balance.findUnique({ where: { agentPubkey_network: { agentPubkey, network } } });
  return row?.units ?? 0n;
}
