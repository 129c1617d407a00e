// A served paid call's stored answer, given again to the payer's repeat of the same request (its answer was lost in
// transit): the same body, the same receipt and the same x402 signed receipt, plain or streamed as it was asked. Never
// a second call, and never a new signature: a replay tells nothing the first answer did not.
import "server-only";
import type { AppContext } from "../context/app-context";
import type { Payment } from "../db";
import { AppError } from "../errors";
import type { ServedCall } from "../pipeline/call-types";
import { readKeptAnswer } from "../pipeline/kept-answer";
import { RECEIPT_PROOF_HEADER, receiptProofUrl } from "../pipeline/serve-call";
import type { Receipt } from "../receipts/receipt-types";
import { encodeReceiptHeader } from "../receipts/sign-receipt";
import {
  replayedSseStream,
  SSE_HEADERS,
  type ReceiptEvent,
  type StoredCompletionBody,
} from "../streaming/sse-inference";
import { settlementHeaders } from "../x402/payment-headers";

/** Marks an answer given again from storage: the call was served once, earlier, and this is its stored answer. */
export const ANSWER_REPLAYED_HEADER = "X-Answer-Replayed";

/** The stored answer of `payment`'s served call; throws payment_replay when it is no longer kept. */
export async function answerAgain(
  ctx: AppContext,
  payment: Payment & { txSignature: string },
  asked: { stream: boolean; usageChunk?: boolean },
): Promise<ServedCall> {
  const logged = payment.inferenceId
    ? await ctx.db.inferenceLog.findUnique({ where: { id: payment.inferenceId }, select: { receipt: true } })
    : null;
  const receipt = (logged?.receipt ?? null) as Receipt | null;
  const kept = readKeptAnswer(payment.answer);
  if (!receipt || !kept || !payment.inferenceId) {
    throw new AppError("payment_replay", "this payment was already used for a call, and its answer is no longer kept", {
      tx_signature: payment.txSignature,
    });
  }
  const x402Receipt = kept.routeReceipt;
  const headers = {
    ...settlementHeaders({
      transaction: payment.txSignature,
      network: payment.network,
      payer: payment.payer,
      extensions: x402Receipt?.extensions,
    }),
    [ANSWER_REPLAYED_HEADER]: "true",
  };
  const proofUrl = receiptProofUrl(ctx.config.baseUrl, payment.inferenceId);
  if (!asked.stream)
    return {
      body: kept.body,
      headers: { ...headers, "X-Service-Receipt": encodeReceiptHeader(receipt), [RECEIPT_PROOF_HEADER]: proofUrl },
    };
  const event: ReceiptEvent = {
    object: "service.receipt",
    receipt,
    log_proof_url: proofUrl,
    ...(x402Receipt ? { x402_receipt: x402Receipt.receipt } : {}),
  };
  return {
    stream: replayedSseStream(kept.body as unknown as StoredCompletionBody, event, {
      usageChunk: asked.usageChunk === true,
    }),
    headers: { ...SSE_HEADERS, ...headers },
  };
}
