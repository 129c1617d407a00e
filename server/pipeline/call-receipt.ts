// The receipt of a served call, the same on every route: built from the hashes its upstream job computed over exactly
// what was asked and answered, with the cost the upstream reported (reconcile compares it with what the ledger
// charged), then signed by the operator key.
import "server-only";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { buildReceipt, type ReceiptFacts } from "../receipts/build-receipt";
import type { Receipt } from "../receipts/receipt-types";
import { signReceipt } from "../receipts/sign-receipt";
import type { CallReservation, UpstreamAnswer } from "./call-types";

/** Signs the receipt of a captured call with `operator`, the receipt-signing key, dated `captured.atMs` (epoch ms). */
export function signCallReceipt(
  operator: Ed25519Keypair,
  reservation: CallReservation,
  answer: Pick<UpstreamAnswer, "model" | "upstream" | "costUnits" | "hashes">,
  captured: { inferenceId: string; pointsTotal: number; atMs: number },
): Receipt {
  const payment = reservation.settlement.receiptPayment;
  const facts: ReceiptFacts = {
    agentPubkey: reservation.agentPubkey,
    upstream: answer.upstream,
    model: answer.model,
    costUnits: answer.costUnits,
    hashes: answer.hashes,
    timestampMs: captured.atMs,
    inferenceId: captured.inferenceId,
    pointsTotal: captured.pointsTotal,
    ...(payment ? { payment } : {}),
  };
  return signReceipt(buildReceipt(facts), operator);
}
