// Step 4 of the seed's paid call: credit the ledger by the amount paid, in ONE transaction with the payment's move
// to `settled`. The (payment_id, kind) unique key makes the credit exactly-once even if this runs twice.
import type { DbClient, DbTransaction } from "../db";
import type { PaymentStatus } from "./payment-records";
import { addToBalance, ensureAgent } from "./atomic-upserts";

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
  return db.$transaction(async (tx) => {
    const moved = await tx.payment.updateMany({
      where: { id: facts.paymentId, status: "claimed" satisfies PaymentStatus },
      data: { status: (facts.servedByCredit ? "served" : "settled") satisfies PaymentStatus, txSignature: facts.txSignature },
    });
    if (moved.count !== 1) throw new Error(`payment ${facts.paymentId} was not in the claimed state`);
    await ensureAgent(tx, facts.agentPubkey);
    await tx.ledgerEntry.create({
      data: { agentPubkey: facts.agentPubkey, network: facts.network, kind: facts.servedByCredit ? "topup_credit" : "payment_credit", units: facts.units, paymentId: facts.paymentId },
    });
    return creditBalance(tx, facts.agentPubkey, facts.network, facts.units);
  });
}

/** Adds `units` (> 0) to a balance, creating it; returns the new balance. Call inside a transaction. */
export async function creditBalance(tx: DbTransaction, agentPubkey: string, network: string, units: bigint): Promise<bigint> {
  return addToBalance(tx, agentPubkey, network, units);
}

/** The spendable balance of an agent on a network (0 when none). */
export async function getBalance(db: DbClient, agentPubkey: string, network: string): Promise<bigint> {
  const row = await db.balance.findUnique({ where: { agentPubkey_network: { agentPubkey, network } } });
  return row?.units ?? 0n;
}
