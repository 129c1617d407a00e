// Steps 6–7 of the seed's paid call, in ONE transaction: debit the upstream cost, count the agent's point, sign the
// receipt with the new points total, insert the log row holding it, and mark the payment served.
import { randomUUID } from "node:crypto";
import type { DbClient } from "../db";
import { logEvent } from "../log";
import type { Receipt } from "../receipts/receipt-types";
import type { PaymentStatus } from "./payment-records";

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
  const { agentPubkey, network } = served;
  const paymentId = served.paymentId ?? null;
  return db.$transaction(async (tx) => {
    // One statement for the money (issue #7's profile: queries per money step):
    // - SECURITY: the balance never goes below zero (a CHECK constraint backs this). A flat-price call's cost is
    //   bounded below its price before the call, so a shortfall means the provider billed above its own price table:
    //   the debit is capped at what is available. The row is locked first, so a concurrent debit cannot read the same
    //   balance.
    // - The payment moves to `served` only from `settled`/`serving`; `payment_moved` = 0 rolls everything back below.
    const rows = await tx.$queryRaw<{ available: bigint; debit: bigint; balance: bigint; points: number; payment_moved: bigint }[]>`
      WITH locked AS (
        SELECT units FROM balances WHERE agent_pubkey = ${agentPubkey} AND network = ${network} FOR UPDATE
      ), amounts AS (
        SELECT COALESCE((SELECT units FROM locked), 0) AS available,
               LEAST(${served.costUnits}::bigint, COALESCE((SELECT units FROM locked), 0)) AS debit
      ), debited AS (
        UPDATE balances SET units = units - (SELECT debit FROM amounts), updated_at = now()
        WHERE agent_pubkey = ${agentPubkey} AND network = ${network} AND (SELECT debit FROM amounts) > 0
        RETURNING units
      ), logged AS (
        INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
        SELECT ${agentPubkey}, ${network}, 'inference_debit', -debit, ${inferenceId}::uuid FROM amounts WHERE debit > 0
      ), points AS (
        INSERT INTO agents (pubkey, points_total) VALUES (${agentPubkey}, 1)
        ON CONFLICT (pubkey) DO UPDATE SET points_total = agents.points_total + 1
        RETURNING points_total
      ), payment AS (
        UPDATE payments SET status = ${"served" satisfies PaymentStatus}, inference_id = ${inferenceId}::uuid, updated_at = now()
        WHERE ${paymentId}::uuid IS NOT NULL AND id = ${paymentId}::uuid AND status IN ('settled', 'serving')
        RETURNING id
      )
      SELECT a.available, a.debit, COALESCE((SELECT units FROM debited), a.available) AS balance,
             (SELECT points_total FROM points) AS points, (SELECT count(*) FROM payment) AS payment_moved
      FROM amounts a`;
    const row = rows[0]!;
    // SECURITY: a payment serves exactly one inference; losing this race rolls the whole transaction back.
    if (paymentId && Number(row.payment_moved) !== 1) throw new Error(`payment ${paymentId} was already served`);
    const debit = BigInt(row.debit);
    if (debit < served.costUnits) {
      logEvent("ledger.cost_exceeds_credit", { agent: agentPubkey, network, cost: served.costUnits.toString(), available: String(row.available) }, "warn");
    }
    const receipt = served.signReceipt({ inferenceId, pointsTotal: Number(row.points), timestampMs: Date.now() });
    await tx.inferenceLog.create({
      data: {
        id: inferenceId,
        agentPubkey,
        network,
        route: served.route,
        model: served.model,
        upstream: served.upstream,
        paymentId,
        txSignature: served.txSignature ?? null,
        priceUnits: served.priceUnits ?? null,
        costUnits: debit,
        latencyMs: served.latencyMs,
        status: "served",
        receipt: receipt as unknown as object,
      },
    });
    return { receipt, balanceUnits: BigInt(row.balance) };
  });
}
