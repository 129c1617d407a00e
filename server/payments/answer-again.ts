// A served paid call's stored answer, given again to the payer's repeat of the same request (its answer was lost in
// transit): the same body and the same receipt, plain or streamed as it was asked. Never a second call.
import "server-only";
import type { AppContext } from "../app-context";
import type { Payment } from "../db";
import { AppError } from "../errors";
import type { ServedCall } from "../pipeline/call-types";
import { RECEIPT_PROOF_HEADER, receiptProofUrl } from "../pipeline/serve-call";
import type { Receipt } from "../receipts/receipt-types";
import { encodeReceiptHeader } from "../receipts/sign-receipt";
import { replayedSseStream, SSE_HEADERS, type ReceiptEvent, type StoredCompletionBody } from "../streaming/sse-inference";
import type { PaidResource } from "../x402/paid-resources";
import { settlementHeaders } from "../x402/payment-headers";
import { issuePaidCallReceipt } from "./paid-call-settlement";

/** Marks an answer given again from storage: the call was served once, earlier, and this is its stored answer. */
export const ANSWER_REPLAYED_HEADER = "X-Answer-Replayed";

/** The stored answer of `payment`'s served call; throws payment_replay when it is no longer kept. */
export async function answerAgain(
  ctx: AppContext,
  payment: Payment & { txSignature: string },
  asked: { stream: boolean; usageChunk?: boolean; paidResource?: PaidResource },
): Promise<ServedCall> {
  const logged = payment.inferenceId ? await ctx.db.inferenceLog.findUnique({ where: { id: payment.inferenceId }, select: { receipt: true } }) : null;
  const receipt = (logged?.receipt ?? null) as Receipt | null;
  const body = payment.answer as StoredCompletionBody | null;
  if (!receipt || !body || !payment.inferenceId) {
    throw new AppError("payment_replay", "this payment was already used for a call, and its answer is no longer kept", { tx_signature: payment.txSignature });
  }
  const x402Receipt = await issuePaidCallReceipt(ctx, payment, asked.paidResource);
  const headers = {
    ...settlementHeaders({ transaction: payment.txSignature, network: payment.network, payer: payment.payer, extensions: x402Receipt?.extensions }),
    [ANSWER_REPLAYED_HEADER]: "true",
  };
  const proofUrl = receiptProofUrl(ctx.config.baseUrl, payment.inferenceId);
  if (!asked.stream) return { body: body as unknown as Record<string, unknown>, headers: { ...headers, "X-Service-Receipt": encodeReceiptHeader(receipt), [RECEIPT_PROOF_HEADER]: proofUrl } };
  const event: ReceiptEvent = { object: "service.receipt", receipt, log_proof_url: proofUrl, ...(x402Receipt ? { x402_receipt: x402Receipt.receipt } : {}) };
  return { stream: replayedSseStream(body, event, { usageChunk: asked.usageChunk === true }), headers: { ...SSE_HEADERS, ...headers } };
}
