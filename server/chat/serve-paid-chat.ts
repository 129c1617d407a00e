// The paid chat call, in the seed's order (§1, §3): challenge → verify → payer → allowlist → claim → settle → credit
// → inference → debit + log + receipt → 200. Every exit is a stable error code; money only moves in the ledger
// module's transactions, and a payment is claimed in the database before settlement moves anything.
import { randomUUID } from "node:crypto";
import type { AppContext } from "../app-context";
import { logEvent } from "../log";
import { firstEventThenRest, SSE_HEADERS, sseInferenceStream } from "../streaming/sse-inference";
import type { Completion } from "../upstream";
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
import { completionRequest, runCompletion, type CompletionResult } from "./run-completion";

export interface PaidChatInput {
  body: ChatRequest;
  headers: Headers;
  /** The public URL of the resource, for the challenge. */
  resourceUrl: string;
}

export type PaidChatResult =
  | { status: number; body: unknown; stream?: undefined; headers: Record<string, string> }
  | { status: 200; stream: ReadableStream<Uint8Array>; body?: undefined; headers: Record<string, string> };

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
  if (input.body.stream) return streamFromPayment(ctx, input, payment);
  const txSignature = payment.txSignature!;
  let completion: CompletionResult;
  try {
    completion = await runCompletion(ctx.upstream, input.body);
    crashPoint("during_inference");
  } catch (err) {
    throw await keepAsUnserved(ctx, payment, err);
  }
  const recorded = await recordInference(ctx.db, {
    ...servedFacts(payment, completion),
    signReceipt: receiptSigner(input, payment, completion),
  });
  crashPoint("after_debit");
  const headers = {
    "X-Service-Receipt": encodeReceiptHeader(recorded.receipt!),
    ...settlementHeaders({ transaction: txSignature, network: payment.network, payer: payment.payer }),
    "X-Credit-Balance-Usdc": formatUnitsAsUsdc(recorded.balanceUnits),
  };
  crashPoint("before_response");
  return { status: 200, body: completion.body(recorded.inferenceId), headers };
}

/**
 * The streamed answer (issue #8): the payment is settled and credited before the first byte, and its
 * PAYMENT-RESPONSE header goes with the stream's headers. The receipt is the last event before [DONE].
 */
async function streamFromPayment(ctx: AppContext, input: PaidChatInput, payment: Payment): Promise<PaidChatResult> {
  const inferenceId = randomUUID();
  const started = performance.now();
  const abort = new AbortController();
  let events;
  try {
    events = await firstEventThenRest(ctx.upstream.stream(completionRequest(input.body), { signal: abort.signal }));
  } catch (err) {
    // Before the first byte: the non-streamed rules and a plain error response.
    throw await keepAsUnserved(ctx, payment, err);
  }
  const stream = sseInferenceStream({
    inferenceId,
    model: input.body.model,
    events,
    abort,
    finish: async (completion) => {
      const recorded = await recordInference(ctx.db, { ...servedFacts(payment, completion), inferenceId, signReceipt: receiptSigner(input, payment, completion) });
      return recorded.receipt!;
    },
    abortRecorded: async (produced) => {
      // The client left: what the upstream produced is what it cost; the payment is used, and no receipt is claimed.
      const cut = { ...ctx.upstream.interrupted(input.body.model, input.body.messages, produced), latencyMs: Math.round(performance.now() - started) };
      await recordInference(ctx.db, { ...servedFacts(payment, cut), inferenceId, signReceipt: null });
      logEvent("chat.stream_aborted", { inference_id: inferenceId, network: payment.network, cost: cut.costUnits.toString() });
    },
    fail: (err) => keepAsUnserved(ctx, payment, err),
  });
  return {
    status: 200,
    stream,
    headers: { ...SSE_HEADERS, ...settlementHeaders({ transaction: payment.txSignature!, network: payment.network, payer: payment.payer }) },
  };
}

/** The upstream failed after settlement: the payment is kept as credit, and the same header can be sent again once. */
async function keepAsUnserved(ctx: AppContext, payment: Payment, err: unknown): Promise<AppError> {
  await markUnserved(ctx.db, payment.id, err instanceof AppError ? err.code : "upstream_error");
  const balance = await getBalance(ctx.db, payment.payer, payment.network);
  return new AppError(
    "upstream_error",
    "the model provider failed after your payment settled; the payment is kept as credit and the same payment header can be sent again once",
    { tx_signature: payment.txSignature, balance_usdc: formatUnitsAsUsdc(balance) },
  );
}

function servedFacts(payment: Payment, completion: Pick<Completion, "model" | "upstream" | "costUnits" | "latencyMs">) {
  return {
    agentPubkey: payment.payer,
    network: payment.network,
    route: "chat" as const,
    model: completion.model,
    upstream: completion.upstream,
    costUnits: completion.costUnits,
    latencyMs: completion.latencyMs,
    paymentId: payment.id,
    txSignature: payment.txSignature!,
    priceUnits: payment.units,
  };
}

function receiptSigner(input: PaidChatInput, payment: Payment, completion: Completion) {
  const operator = operatorKeypair();
  return ({ inferenceId, pointsTotal, timestampMs }: { inferenceId: string; pointsTotal: number; timestampMs: number }): Receipt =>
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
        payment: { amountUnits: payment.units, txSignature: payment.txSignature!, network: payment.network, payTo: payment.payTo },
      }),
      operator,
    );
}
