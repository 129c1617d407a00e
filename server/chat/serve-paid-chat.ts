// The paid chat call, in the seed's order (§1, §3): challenge → verify → payer → allowlist → claim → settle → credit
// → inference → debit + log + receipt → 200. Every exit is a stable error code; money only moves in the ledger
// module's transactions, and a payment is claimed in the database before settlement moves anything.
import type { AppContext } from "../app-context";
import { AppError } from "../errors";
import { operatorKeypair } from "../keys/service-keys";
import { buildReceipt } from "../receipts/build-receipt";
import { encodeReceiptHeader, signReceipt } from "../receipts/sign-receipt";
import type { Receipt } from "../receipts/receipt-types";
import { beginServingUnserved, markUnserved, takeOverStaleClaim } from "../ledger/payment-records";
import { crashPoint } from "../chaos/crash-point";
import { config } from "../env";
import { getBalance, recordSettlement } from "../ledger/record-settlement";
import { recordInference } from "../ledger/record-inference";
import { formatUnitsAsUsdc } from "../verify";
import { settlementHeaders } from "../x402/payment-headers";
import { acceptPayment, planPayment, readPaidRequestState } from "../x402/accept-payment";
import type { Payment } from "../db";
import { checkModelAllowed } from "./check-model";
import type { ChatRequest } from "./chat-request-schema";
import { runCompletion, type CompletionResult } from "./run-completion";

export interface PaidChatInput {
  body: ChatRequest;
  headers: Headers;
  /** The public URL of the resource, for the challenge. */
  resourceUrl: string;
}

export interface PaidChatResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Serves one chat request on the paid route. Throws AppError for every refusal. */
export async function servePaidChat(ctx: AppContext, input: PaidChatInput): Promise<PaidChatResult> {
  const state = await readPaidRequestState(ctx, input.headers);
  const { settings } = state;
  if (settings.flatPriceUnits > settings.maxPriceUnits) {
    throw new AppError("server_misconfigured", "the flat price is above the price ceiling; no payment is requested");
  }
  const plan = await planPayment(ctx, settings, input.body.network, settings.flatPriceUnits);
  checkModelAllowed(ctx.upstream, input.body, settings.flatPriceUnits);
  const accepted = await acceptPayment(ctx, {
    state,
    plan,
    headers: input.headers,
    resourceUrl: input.resourceUrl,
    description: "Signet chat completion (one call)",
    purpose: "chat",
    eventPrefix: "chat",
  });
  if (accepted.kind === "known") return handleKnownPayment(ctx, input, accepted.payment);
  const payment = accepted.payment;
  await recordSettlement(ctx.db, { paymentId: payment.id, txSignature: payment.txSignature!, agentPubkey: payment.payer, network: payment.network, units: payment.units });
  crashPoint("after_credit");
  return serveFromPayment(ctx, input, { ...payment, status: "settled" });
}

/** A payment header seen before: replay of a served payment, a retry of an unserved one, or one in flight. */
async function handleKnownPayment(ctx: AppContext, input: PaidChatInput, payment: Payment): Promise<PaidChatResult> {
  if (payment.status === "unserved" && (await beginServingUnserved(ctx.db, payment.id))) {
    return serveFromPayment(ctx, input, { ...payment, status: "serving" });
  }
  // Settled (credited) or serving, and its lease ran out: the process serving it died; serve it once now.
  if ((payment.status === "settled" || payment.status === "serving") && (await takeOverStaleClaim(ctx.db, payment.id, config().PAYMENT_LEASE_MS, ["settled", "serving"], "serving"))) {
    return serveFromPayment(ctx, input, { ...payment, status: "serving" });
  }
  const message =
    payment.status === "served"
      ? "this payment was already used for a call"
      : "this payment is already being processed";
  throw new AppError("payment_replay", message, payment.txSignature ? { tx_signature: payment.txSignature } : {});
}

/** Steps 5–8 for a settled (or unserved, being retried) payment. */
async function serveFromPayment(ctx: AppContext, input: PaidChatInput, payment: Payment): Promise<PaidChatResult> {
  const txSignature = payment.txSignature!;
  let completion: CompletionResult;
  try {
    completion = await runCompletion(ctx.upstream, input.body);
    crashPoint("during_inference");
  } catch (err) {
    await markUnserved(ctx.db, payment.id, err instanceof AppError ? err.code : "upstream_error");
    const balance = await getBalance(ctx.db, payment.payer, payment.network);
    throw new AppError(
      "upstream_error",
      "the model provider failed after your payment settled; the payment is kept as credit and the same payment header can be sent again once",
      { tx_signature: txSignature, balance_usdc: formatUnitsAsUsdc(balance) },
    );
  }
  const operator = operatorKeypair();
  const recorded = await recordInference(ctx.db, {
    agentPubkey: payment.payer,
    network: payment.network,
    route: "chat",
    model: completion.model,
    upstream: completion.upstream,
    costUnits: completion.costUnits,
    latencyMs: completion.latencyMs,
    paymentId: payment.id,
    txSignature,
    priceUnits: payment.units,
    signReceipt: ({ inferenceId, pointsTotal, timestampMs }): Receipt =>
      signReceipt(
        buildReceipt({
          agentPubkey: payment.payer,
          upstream: completion.upstream,
          model: completion.model,
          costUnits: completion.costUnits,
          prompt: { messages: input.body.messages },
          responseText: completion.content,
          timestampMs,
          inferenceId,
          pointsTotal,
          payment: { amountUnits: payment.units, txSignature, network: payment.network, payTo: payment.payTo },
        }),
        operator,
      ),
  });
  crashPoint("after_debit");
  const headers = {
    "X-Service-Receipt": encodeReceiptHeader(recorded.receipt),
    ...settlementHeaders({ transaction: txSignature, network: payment.network, payer: payment.payer }),
    "X-Credit-Balance-Usdc": formatUnitsAsUsdc(recorded.balanceUnits),
  };
  crashPoint("before_response");
  return {
    status: 200,
    body: completion.body(recorded.receipt.inference_id as string),
    headers,
  };
}
