// Steps 6–7 of the seed's paid call, in ONE transaction: debit the upstream cost, count the agent's point, sign the
// receipt with the new points total, insert the log row holding it, and mark the payment served.
import { randomUUID } from "node:crypto";
import type { DbClient } from "../db";
import { logEvent } from "../log";
import type { Receipt } from "../receipts/receipt-types";
import type { PaymentStatus } from "./payment-records";
import { addAgentPoint } from "./atomic-upserts";

export interface ServedInference {
  agentPubkey: string;
  network: string;
  route: "chat" | "inference";
  model: string;
  upstream: string;
  costUnits: bigint;
  latencyMs: number;
  paymentId?: string;
  txSignature?: string;
  priceUnits?: bigint;
  /** Builds the signed receipt once the inference id and the new points total are known. */
  signReceipt: (facts: { inferenceId: string; pointsTotal: number; timestampMs: number }) => Receipt;
}

export interface RecordedInference {
  receipt: Receipt;
  balanceUnits: bigint;
}

/** Debits the cost and logs the call with its receipt; the payment (if any) becomes `served`. */
export async function recordInference(db: DbClient, served: ServedInference): Promise<RecordedInference> {
  const inferenceId = randomUUID();
  return db.$transaction(async (tx) => {
    const { agentPubkey, network } = served;
    // SECURITY: the balance never goes below zero (a CHECK constraint backs this). A flat-price call's cost is bounded
    // below its price before the call, so a shortfall here means the provider billed above its own price table.
    // Lock the balance row for the rest of the transaction, so a concurrent debit cannot read the same `available`.
    const locked = await tx.$queryRaw<{ units: bigint }[]>`SELECT units FROM balances WHERE agent_pubkey = ${agentPubkey} AND network = ${network} FOR UPDATE`;
    const available = locked[0] ? BigInt(locked[0].units) : 0n;
    const debit = served.costUnits <= available ? served.costUnits : available;
    if (debit < served.costUnits) {
      logEvent("ledger.cost_exceeds_credit", { agent: agentPubkey, network, cost: served.costUnits.toString(), available: available.toString() }, "warn");
    }
    let balanceUnits = available;
    if (debit > 0n) {
      const row = await tx.balance.update({
        where: { agentPubkey_network: { agentPubkey, network } },
        data: { units: { decrement: debit } },
      });
      balanceUnits = row.units;
      await tx.ledgerEntry.create({ data: { agentPubkey, network, kind: "inference_debit", units: -debit, inferenceId, paymentId: null } });
    }
    const pointsTotal = await addAgentPoint(tx, agentPubkey);
    const receipt = served.signReceipt({ inferenceId, pointsTotal, timestampMs: Date.now() });
    await tx.inferenceLog.create({
      data: {
        id: inferenceId,
        agentPubkey,
        network,
        route: served.route,
        model: served.model,
        upstream: served.upstream,
        paymentId: served.paymentId ?? null,
        txSignature: served.txSignature ?? null,
        priceUnits: served.priceUnits ?? null,
        costUnits: debit,
        latencyMs: served.latencyMs,
        status: "served",
        receipt: receipt as unknown as object,
      },
    });
    if (served.paymentId) {
      const moved = await tx.payment.updateMany({
        where: { id: served.paymentId, status: { in: ["settled", "serving"] satisfies PaymentStatus[] } },
        data: { status: "served" satisfies PaymentStatus, inferenceId },
      });
      // SECURITY: a payment serves exactly one inference; losing this race rolls the whole transaction back.
      if (moved.count !== 1) throw new Error(`payment ${served.paymentId} was already served`);
    }
    return { receipt, balanceUnits };
  });
}
