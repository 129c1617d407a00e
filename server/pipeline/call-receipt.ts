// The receipt of a served call, the same for both routes: built from exactly what was asked and answered, with the
// cost the upstream reported (reconcile compares it with what the ledger charged), then signed by the operator key.
import "server-only";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { buildReceipt, type ReceiptFacts } from "../receipts/build-receipt";
import type { Receipt } from "../receipts/receipt-types";
import { signReceipt } from "../receipts/sign-receipt";
import type { Completion } from "../upstream";
import type { CallReservation, ReceiptPrompt } from "./call-types";

/** Signs the receipt of a captured call with `operator`, the receipt-signing key. */
export function signCallReceipt(
  operator: Ed25519Keypair,
  reservation: CallReservation,
  prompt: ReceiptPrompt,
  completion: Pick<Completion, "model" | "upstream" | "costUnits" | "content">,
  captured: { inferenceId: string; pointsTotal: number },
): Receipt {
  const payment = reservation.settlement.receiptPayment;
  const facts: ReceiptFacts = {
    agentPubkey: reservation.agentPubkey,
    upstream: completion.upstream,
    model: completion.model,
    costUnits: completion.costUnits,
    prompt,
    responseText: completion.content,
    timestampMs: Date.now(),
    inferenceId: captured.inferenceId,
    pointsTotal: captured.pointsTotal,
    ...(payment ? { payment } : {}),
  };
  return signReceipt(buildReceipt(facts), operator);
}
