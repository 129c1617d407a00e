// Steps 6–7 of the seed's paid call: debit the upstream cost, count the agent's point, mark the payment served and log
// the call in ONE statement; then sign the receipt with the new points total and store it on the log row.
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
  /** The inference id, when the caller chose it already (a stream's chunk ids carry it); else a new one. */
  inferenceId?: string;
  /**
   * Builds the signed receipt once the inference id and the new points total are known; null for a stream the client
   * left mid-way (`aborted`: its cost is debited, and no receipt is claimed for text the client never got).
   */
  signReceipt: ((facts: { inferenceId: string; pointsTotal: number; timestampMs: number }) => Receipt) | null;
}

export interface RecordedInference {
  inferenceId: string;
  /** Null for an aborted stream. */
  receipt: Receipt | null;
  balanceUnits: bigint;
}

/**
 * Debits the cost and logs the call; the payment (if any) becomes `served`. The money, the point, the payment's move
 * and the log row are ONE statement; the signed receipt (which needs the new points total) is attached to the log row
 * by a second one (`attachReceipt`).
 */
export async function recordInference(db: DbClient, served: ServedInference): Promise<RecordedInference> {
  const inferenceId = served.inferenceId ?? randomUUID();
  const status = served.signReceipt ? "served" : "aborted";
  const { agentPubkey, network } = served;
  const paymentId = served.paymentId ?? null;
  // - SECURITY: a payment serves exactly one inference. Everything is gated on the payment's move (`settled` or
  //   `serving` to `served`): when another request won it, the statement writes nothing and payment_moved is 0.
  // - SECURITY: the balance never goes below zero (a CHECK constraint backs this). A flat-price call's cost is bounded
  //   below its price before the call, so a shortfall means the provider billed above its own price table: the debit
  //   is capped at what is available. The row is locked first, so a concurrent debit cannot read the same balance.
  const rows = await db.$queryRaw<{ payment_moved: bigint; available: bigint | null; debit: bigint | null; balance: bigint | null; points: number | null }[]>`
    WITH payment AS (
      UPDATE payments SET status = ${"served" satisfies PaymentStatus}, inference_id = ${inferenceId}::uuid, updated_at = now()
      WHERE ${paymentId}::uuid IS NOT NULL AND id = ${paymentId}::uuid AND status IN ('settled', 'serving')
      RETURNING id
    ), gate AS (
      SELECT 1 AS go WHERE ${paymentId}::uuid IS NULL
      UNION ALL SELECT 1 FROM payment
    ), locked AS (
      SELECT units FROM balances WHERE agent_pubkey = ${agentPubkey} AND network = ${network} AND EXISTS (SELECT 1 FROM gate) FOR UPDATE
    ), amounts AS (
      SELECT COALESCE((SELECT units FROM locked), 0) AS available,
             LEAST(${served.costUnits}::bigint, COALESCE((SELECT units FROM locked), 0)) AS debit
      FROM gate
    ), debited AS (
      UPDATE balances SET units = units - (SELECT debit FROM amounts), updated_at = now()
      WHERE agent_pubkey = ${agentPubkey} AND network = ${network} AND (SELECT debit FROM amounts) > 0
      RETURNING units
    ), logged AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT ${agentPubkey}, ${network}, 'inference_debit', -debit, ${inferenceId}::uuid FROM amounts WHERE debit > 0
    ), points AS (
      INSERT INTO agents (pubkey, points_total) SELECT ${agentPubkey}, 1 FROM gate WHERE ${status === "served"}::boolean
      ON CONFLICT (pubkey) DO UPDATE SET points_total = agents.points_total + 1
      RETURNING points_total
    ), call AS (
      INSERT INTO inference_logs (id, agent_pubkey, network, route, model, upstream, payment_id, tx_signature, price_units, cost_units, latency_ms, status)
      SELECT ${inferenceId}::uuid, ${agentPubkey}, ${network}, ${served.route}, ${served.model}, ${served.upstream}, ${paymentId}::uuid,
             ${served.txSignature ?? null}, ${served.priceUnits ?? null}::bigint, debit, ${served.latencyMs}::int, ${status}
      FROM amounts
    )
    SELECT (SELECT count(*) FROM payment) AS payment_moved, a.available, a.debit,
           COALESCE((SELECT units FROM debited), a.available) AS balance, (SELECT points_total FROM points) AS points
    FROM (SELECT 1) AS one LEFT JOIN amounts a ON true`;
  const row = rows[0]!;
  if (paymentId && Number(row.payment_moved) !== 1) throw new Error(`payment ${paymentId} was already served`);
  const debit = BigInt(row.debit!);
  if (debit < served.costUnits) {
    logEvent("ledger.cost_exceeds_credit", { agent: agentPubkey, network, cost: served.costUnits.toString(), available: String(row.available) }, "warn");
  }
  if (!served.signReceipt) return { inferenceId, receipt: null, balanceUnits: BigInt(row.balance!) };
  const receipt = served.signReceipt({ inferenceId, pointsTotal: Number(row.points), timestampMs: Date.now() });
  await attachReceipt(db, inferenceId, receipt);
  return { inferenceId, receipt, balanceUnits: BigInt(row.balance!) };
}

/**
 * Stores a served call's signed receipt on its log row (for `GET /api/v1/receipts/<id>`). The money is already
 * recorded: a failure here is logged, and the client still gets the receipt it was served with.
 */
export async function attachReceipt(db: DbClient, inferenceId: string, receipt: Receipt): Promise<void> {
  try {
    await db.$executeRaw`UPDATE inference_logs SET receipt = ${JSON.stringify(receipt)}::jsonb WHERE id = ${inferenceId}::uuid`;
  } catch (err) {
    logEvent("receipt.store_failed", { inference_id: inferenceId, reason: err instanceof Error ? err.message.slice(0, 200) : "unknown" }, "error");
  }
}
