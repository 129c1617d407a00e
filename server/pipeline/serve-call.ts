// Serve → capture or release: the one way a reserved call is served, on both routes, plain or streamed.
// - Serve: the upstream call. The hold's lease (and its payment's) is renewed while it runs, so no other server takes
//   the call over while this one still serves it, however long a stream lasts.
// - Capture: debit exactly the cost from the hold, return the rest, write the log row, sign the receipt, store it and
//   stage it for the public receipt log, in ONE transaction: the receipt never leaves unlogged, and a call whose
//   receipt could not be logged is not charged (prepaid: the hold is released; paid: the payment stays reserved for a
//   retry with the same payment header, which serves it once).
// - On an upstream failure: a prepaid hold is released whole; a paid call's hold is kept for its payment's retry.
// - A client that leaves a stream is charged what was produced, with no receipt and no point.
import "server-only";
import type { AppContext } from "../app-context";
import { crashPoint } from "../chaos/crash-point";
import { config } from "../env";
import { AppError } from "../errors";
import { attachReceipt } from "../ledger/attach-receipt";
import { captureHold, releaseHold, renewLease, type CaptureOutcome } from "../ledger/credit-holds";
import { readBalance } from "../ledger/credit-agent";
import { hotTransaction } from "../db/hot-query";
import type { DbClient, DbTransaction } from "../db";
import { logEvent } from "../log";
import { metrics, observeStep, timeStep } from "../metrics/registry";
import { markUnserved } from "../payments/paid-request";
import type { Receipt } from "../receipts/receipt-types";
import { encodeReceiptHeader } from "../receipts/sign-receipt";
import { firstEventThenRest, SSE_HEADERS, sseInferenceStream } from "../streaming/sse-inference";
import type { Completion } from "../upstream";
import { formatUnitsAsUsdc } from "../verify";
import { settlementHeaders } from "../x402/payment-headers";
import { signCallReceipt } from "./call-receipt";
import type { CallRequest, CallReservation, ServedCall } from "./call-types";
import { completionBody } from "./completion-body";

/** Serves a reserved call. Throws the route's AppError when the upstream fails before the first byte. */
export async function serveCall(ctx: AppContext, reservation: CallReservation, request: CallRequest): Promise<ServedCall> {
  servedFrom.set(reservation, performance.now());
  const lease = keepLease(ctx, reservation);
  try {
    return request.stream ? await streamCall(ctx, reservation, request, lease) : await completeCall(ctx, reservation, request);
  } finally {
    // A stream keeps its lease until it ends (streamCall hands the stop to the stream's own ending).
    if (!request.stream) lease.stop();
  }
}

async function completeCall(ctx: AppContext, reservation: CallReservation, request: CallRequest): Promise<ServedCall> {
  let completion: Completion;
  try {
    // A plain answer's first byte is its last: one request, both steps.
    const pending = timeStep(["upstream_first_byte", "upstream"], reservation.network, () => ctx.upstream.complete(request.completion));
    crashPoint("during_inference");
    completion = await pending;
  } catch (err) {
    throw await failCall(ctx, reservation, err);
  }
  const { captured, receipt } = await captureAndLog(ctx, reservation, request, completion);
  crashPoint("after_debit");
  const headers = { ...callHeaders(reservation, captured.balanceUnits), "X-Service-Receipt": encodeReceiptHeader(receipt), [RECEIPT_PROOF_HEADER]: receiptProofUrl(captured.inferenceId) };
  crashPoint("before_response");
  return { body: completionBody(captured.inferenceId, completion), headers };
}

/**
 * The streamed answer: the payment (if any) is settled and the hold reserved before the first byte; the receipt is the
 * last event before [DONE].
 */
async function streamCall(ctx: AppContext, reservation: CallReservation, request: CallRequest, lease: Lease): Promise<ServedCall> {
  const started = performance.now();
  const abort = new AbortController();
  let events;
  try {
    events = await timeStep("upstream_first_byte", reservation.network, () => firstEventThenRest(ctx.upstream.stream(request.completion, { signal: abort.signal })));
  } catch (err) {
    // Before the first byte: the plain rules and a plain error response.
    lease.stop();
    throw await failCall(ctx, reservation, err);
  }
  crashPoint("during_stream");
  const stream = sseInferenceStream({
    inferenceId: reservation.holdId,
    proofUrl: receiptProofUrl(reservation.holdId),
    model: request.completion.model,
    events,
    abort,
    finish: async (completion): Promise<Receipt> => {
      lease.stop();
      observeStep("upstream", reservation.network, (performance.now() - started) / 1000);
      return (await captureAndLog(ctx, reservation, request, completion)).receipt;
    },
    abortRecorded: async (produced) => {
      lease.stop();
      observeStep("upstream", reservation.network, (performance.now() - started) / 1000);
      // The client left: what the upstream produced is what it cost; the hold is used, and no receipt is claimed.
      const cut = { ...ctx.upstream.interrupted(request.completion.model, request.completion.messages, produced), latencyMs: Math.round(performance.now() - started) };
      await capture(ctx, reservation, cut, "aborted");
      logEvent("call.stream_aborted", { inference_id: reservation.holdId, network: reservation.network, cost: cut.costUnits.toString() });
    },
    fail: (err) => {
      lease.stop();
      return failCall(ctx, reservation, err);
    },
  });
  return { stream, headers: { ...SSE_HEADERS, ...callHeaders(reservation, null) } };
}

/** Where a receipt's inclusion proof is served (the answer's `X-Service-Receipt-Proof`, the stream's receipt event). */
export const RECEIPT_PROOF_HEADER = "X-Service-Receipt-Proof";

function receiptProofUrl(inferenceId: string): string {
  return `${config().baseUrl}/api/v1/receipts/${inferenceId}/proof`;
}

/**
 * Captures the hold, signs the receipt and stores it with its log entry staged, in one transaction. When the receipt
 * cannot be logged nothing of it commits: the money follows the upstream-failure rules (prepaid released; paid kept for
 * the retry) and the call answers 503 `receipt_log_unavailable`.
 */
async function captureAndLog(
  ctx: AppContext,
  reservation: CallReservation,
  request: CallRequest,
  completion: Completion,
): Promise<{ captured: CaptureOutcome & { ok: true }; receipt: Receipt }> {
  let logged: { captured: CaptureOutcome & { ok: true }; receipt: Receipt };
  try {
    logged = await hotTransaction(ctx.db, async (tx) => {
      const captured = await capture(ctx, reservation, completion, "served", tx);
      const receipt = signCallReceipt(reservation, request.prompt, completion, captured);
      await attachReceipt(tx, captured.inferenceId, receipt);
      return { captured, receipt };
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    logEvent("receipt.log_failed", { inference_id: reservation.holdId, network: reservation.network, reason: err instanceof Error ? err.message.slice(0, 200) : "unknown" }, "error");
    throw await failCall(ctx, reservation, err, "log");
  }
  countCall(reservation, "served");
  return logged;
}

/** Captures the hold; a hold that is no longer held means another server finished this call: nothing is sent twice. */
async function capture(
  ctx: AppContext,
  reservation: CallReservation,
  completion: Pick<Completion, "model" | "upstream" | "costUnits" | "latencyMs">,
  outcome: "served" | "aborted",
  db: DbClient | DbTransaction = ctx.db,
): Promise<CaptureOutcome & { ok: true }> {
  const captured = await captureHold(db, {
    holdId: reservation.holdId,
    costUnits: completion.costUnits,
    model: completion.model,
    upstream: completion.upstream,
    latencyMs: completion.latencyMs,
    outcome,
  });
  if (!captured.ok) {
    logEvent("call.capture_lost", { inference_id: reservation.holdId, network: reservation.network }, "error");
    throw new AppError("payment_replay", "this call's hold was already settled by another request; its answer is not served twice");
  }
  // A served call is counted once its transaction commits (captureAndLog).
  if (outcome === "aborted") countCall(reservation, outcome);
  return captured;
}

/**
 * The upstream failed. Prepaid: the hold is released and nothing is charged. Paid: the payment becomes `unserved` and
 * its hold stays reserved, so only a retry with the same payment header can use that money.
 */
async function failCall(ctx: AppContext, reservation: CallReservation, err: unknown, cause: "upstream" | "log" = "upstream"): Promise<AppError> {
  countCall(reservation, cause === "log" ? "log_failed" : "upstream_error");
  const code = cause === "log" ? "receipt_log_unavailable" : "upstream_error";
  const what = cause === "log" ? "the receipt could not be written to the receipt log" : "the model provider failed";
  // Seconds until a retry is worth it: the log's database may be back by then.
  const retry: Record<string, string> = cause === "log" ? { "Retry-After": "1" } : {};
  const payment = reservation.payment;
  if (payment) {
    await markUnserved(ctx.db, payment.id, err instanceof AppError ? err.code : code);
    const balance = await readBalance(ctx.db, reservation.agentPubkey, reservation.network);
    return new AppError(
      code,
      `${what} after your payment settled; the payment stays reserved for this call and the same payment header can be sent again once`,
      { tx_signature: payment.txSignature, balance_usdc: formatUnitsAsUsdc(balance), reserved_usdc: formatUnitsAsUsdc(reservation.holdUnits) },
      retry,
    );
  }
  const balance = await releaseHold(ctx.db, reservation.holdId);
  return new AppError(code, `${what}; the hold was released and nothing was charged`, {
    balance_usdc: formatUnitsAsUsdc(balance ?? (await readBalance(ctx.db, reservation.agentPubkey, reservation.network))),
  }, retry);
}

/** Counts the call's outcome; a served or aborted call also observes its total time, from serveCall to the capture. */
function countCall(reservation: CallReservation, outcome: "served" | "aborted" | "upstream_error" | "log_failed"): void {
  const m = metrics();
  m.calls.inc({ route: reservation.payment ? "paid" : "prepaid", network: reservation.network, outcome, code: "" });
  const from = servedFrom.get(reservation);
  if ((outcome === "served" || outcome === "aborted") && from !== undefined) observeStep("total", reservation.network, (performance.now() - from) / 1000);
}

/** When serveCall began, per reservation: the start of the call's `total` step. */
const servedFrom = new WeakMap<CallReservation, number>();

/** The call's headers: the settlement on the paid route, and the agent's spendable balance once known. */
function callHeaders(reservation: CallReservation, balanceUnits: bigint | null): Record<string, string> {
  const payment = reservation.payment;
  return {
    ...(payment ? settlementHeaders({ transaction: payment.txSignature, network: payment.network, payer: payment.payer }) : {}),
    ...(balanceUnits !== null ? { "X-Credit-Balance-Usdc": formatUnitsAsUsdc(balanceUnits) } : {}),
  };
}

interface Lease {
  stop(): void;
}

/** Renews the call's lease every third of PAYMENT_LEASE_MS until stopped. */
function keepLease(ctx: AppContext, reservation: CallReservation): Lease {
  const leaseMs = config().PAYMENT_LEASE_MS;
  const timer = setInterval(() => {
    renewLease(ctx.db, reservation.holdId, reservation.payment?.id ?? null, leaseMs)
      .then((held) => {
        if (!held) logEvent("call.lease_lost", { inference_id: reservation.holdId }, "warn");
      })
      .catch((err: unknown) => logEvent("call.lease_renew_failed", { inference_id: reservation.holdId, reason: String(err).slice(0, 200) }, "warn"));
  }, Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
