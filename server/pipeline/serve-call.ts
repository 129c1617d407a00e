// Serve → capture or release: the one way a reserved call is served, on both routes, plain or streamed.
// - Serve: the upstream call. The hold's lease (and its payment's) is renewed while it runs, so no other server takes
//   the call over while this one still serves it, however long a stream lasts.
// - Capture: debit exactly the cost from the hold, return the rest, write the log row; then sign the receipt, and store
//   it with its public-log entry staged in one statement. The receipt leaves only once that statement succeeded; when
//   it cannot, the capture is undone (prepaid: the hold is released, nothing charged; paid: the payment stays reserved
//   for one retry with the same payment header) and the call answers 503 receipt_log_unavailable.
//   A paid call's answer also carries the x402 receipt (JWS, offer-receipt extension): in PAYMENT-RESPONSE, or in a
//   stream's final event, since a stream's headers leave before the call is served.
// - On an upstream failure: a prepaid hold is released whole; a paid call's hold is kept for its payment's retry.
// - A client that leaves a stream is charged what was produced, with no receipt and no point.
// Where the two routes differ, the reservation's settlement strategy (call-types.ts) decides: the route builds it, and
// this module never knows which route it serves.
import "server-only";
import type { AppContext } from "../app-context";
import { crashPoint } from "../runtime/crash-point";
import { AppError } from "../errors";
import { attachReceipt, receiptFitsLog } from "../ledger/attach-receipt";
import { captureHold, renewLease, type CaptureFacts, type CaptureOutcome } from "../ledger/credit-holds";
import { undoCapture } from "../ledger/undo-capture";
import { logEvent } from "../log";
import { observeStep, timeStep } from "../metrics/registry";
import type { Receipt } from "../receipts/receipt-types";
import { encodeReceiptHeader } from "../receipts/sign-receipt";
import { firstEventThenRest, SSE_HEADERS, sseInferenceStream } from "../streaming/sse-inference";
import type { Completion } from "../upstream";
import { formatUnitsAsUsdc } from "../verify";
import { signCallReceipt } from "./call-receipt";
import type { CallRequest, CallReservation, ServedCall } from "./call-types";
import { completionBody } from "./completion-body";

/** Serves a reserved call. Throws the route's AppError when the upstream fails before the first byte. */
export async function serveCall(ctx: AppContext, reservation: CallReservation, request: CallRequest): Promise<ServedCall> {
  servedFrom.set(reservation, performance.now());
  const lease = keepLease(ctx, reservation);
  try {
    return request.stream ? await streamCall(ctx, reservation, request, lease) : await completeCall(ctx, reservation, request);
  } catch (err) {
    releaseCallIfDatabaseLost(ctx, reservation, err);
    throw err;
  } finally {
    // A stream keeps its lease until it ends (streamCall hands the stop to the stream's own ending).
    if (!request.stream) lease.stop();
  }
}

async function completeCall(ctx: AppContext, reservation: CallReservation, request: CallRequest): Promise<ServedCall> {
  let completion: Completion;
  try {
    // A plain answer's first byte is its last: one request, both steps.
    const pending = timeStep(ctx.metrics, ["upstream_first_byte", "upstream"], reservation.network, () => ctx.upstream.complete(request.completion));
    crashPoint(ctx.config, "during_inference");
    completion = await pending;
  } catch (err) {
    throw await failCall(ctx, reservation, err);
  }
  // One body: the one sent, and the one kept for the payer's repeat of the request.
  const body = completionBody(reservation.holdId, completion);
  const { captured, receipt } = await captureAndLog(ctx, reservation, request, completion, keptAnswer(reservation, body));
  crashPoint(ctx.config, "after_debit");
  const x402Receipt = await reservation.settlement.afterAnswer();
  const headers = {
    ...callHeaders(reservation, captured.balanceUnits, x402Receipt?.extensions),
    "X-Service-Receipt": encodeReceiptHeader(receipt),
    [RECEIPT_PROOF_HEADER]: receiptProofUrl(ctx.config.baseUrl, captured.inferenceId),
  };
  crashPoint(ctx.config, "before_response");
  return { body, headers };
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
    events = await timeStep(ctx.metrics, "upstream_first_byte", reservation.network, () => firstEventThenRest(ctx.upstream.stream(request.completion, { signal: abort.signal })));
  } catch (err) {
    // Before the first byte: the plain rules and a plain error response.
    lease.stop();
    throw await failCall(ctx, reservation, err);
  }
  crashPoint(ctx.config, "during_stream");
  const stream = sseInferenceStream({
    inferenceId: reservation.holdId,
    proofUrl: receiptProofUrl(ctx.config.baseUrl, reservation.holdId),
    model: request.completion.model,
    usageChunk: request.usageChunk === true,
    events,
    abort,
    finish: async (completion) => {
      lease.stop();
      observeStep(ctx.metrics, "upstream", reservation.network, (performance.now() - started) / 1000);
      const answer = keptAnswer(reservation, completionBody(reservation.holdId, completion));
      const { receipt } = await captureAndLog(ctx, reservation, request, completion, answer).catch((err: unknown) => {
        releaseCallIfDatabaseLost(ctx, reservation, err);
        throw err;
      });
      const x402Receipt = await reservation.settlement.afterAnswer();
      return { receipt, x402Receipt: x402Receipt?.receipt ?? null };
    },
    abortRecorded: async (produced) => {
      lease.stop();
      observeStep(ctx.metrics, "upstream", reservation.network, (performance.now() - started) / 1000);
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

/**
 * A call stopped by a lost database (its answer 503 database_unavailable) gives its money back as soon as the database
 * answers again, without waiting out its lease, as its route keeps it (the settlement's onDatabaseLost).
 */
function releaseCallIfDatabaseLost(ctx: AppContext, reservation: CallReservation, err: unknown): void {
  reservation.settlement.onDatabaseLost(ctx.db, reservation, err);
}

/** Where a receipt's inclusion proof is served (the answer's `X-Service-Receipt-Proof`, the stream's receipt event). */
export const RECEIPT_PROOF_HEADER = "X-Service-Receipt-Proof";

/** The URL of a receipt's inclusion proof. */
export function receiptProofUrl(baseUrl: string, inferenceId: string): string {
  return `${baseUrl}/api/v1/receipts/${inferenceId}/proof`;
}

/** Attempts at storing and staging a receipt, and the pauses between them: a blip of the database is ridden out. */
const ATTACH_RETRY_DELAYS_MS = [25, 100];

/** Captures that sign the receipt again after the agent's points moved under it (another call of the same agent). */
const MAX_RECEIPT_CAPTURES = 4;

/**
 * Captures the hold and logs its receipt. The receipt is signed first, with the agent's next points as the hold's
 * statement read them, and the capture's own statement stores it and stages it for the public log: capture and
 * receipt are one commit. When another call of the agent moved the points first, nothing was written and the receipt
 * is signed again with the points the statement found. Only when that keeps failing (or the points are unknown) does
 * the capture go alone and the receipt follow in its own statement, retried on a blip.
 * SECURITY: a receipt that could not be logged is never returned: the capture is undone instead, so the call is not
 * charged (prepaid) or stays servable by its payment's retry (paid), and the call answers 503 receipt_log_unavailable.
 */
async function captureAndLog(
  ctx: AppContext,
  reservation: CallReservation,
  request: CallRequest,
  completion: Completion,
  answer: string | null,
): Promise<{ captured: CaptureOutcome & { ok: true }; receipt: Receipt }> {
  // Unknown points (a retried payment, a hold reserved apart from its admission) cost one statement to learn.
  let pointsBefore: number | null = reservation.pointsBefore ?? -1;
  for (let attempt = 0; pointsBefore !== null && attempt < MAX_RECEIPT_CAPTURES; attempt++) {
    const receipt = signCallReceipt(ctx.keys.operator(), reservation, request.prompt, completion, { inferenceId: reservation.holdId, pointsTotal: pointsBefore + 1 });
    const json = JSON.stringify(receipt);
    if (!receiptFitsLog(json)) break;
    const captured = await captureWithReceipt(ctx, reservation, completion, answer, { json, pointsBefore });
    if (captured.ok) {
      countCall(ctx, reservation, "served");
      return { captured, receipt };
    }
    if (captured.reason === "hold_not_held") throw captureLost(reservation);
    pointsBefore = captured.pointsNow;
  }
  const captured = await capture(ctx, reservation, completion, "served", answer);
  const receipt = signCallReceipt(ctx.keys.operator(), reservation, request.prompt, completion, captured);
  await retryingBlips(reservation, () => attachReceipt(ctx.db, captured.inferenceId, receipt), () => unlogCall(ctx, reservation));
  countCall(ctx, reservation, "served");
  return { captured, receipt };
}

/**
 * The capture with its receipt, retried on a blip. Its statement is all or nothing: one that keeps failing captured
 * nothing, so the call is left as an upstream failure leaves it (prepaid: the hold released; paid: the payment reserved
 * for its retry) and answers 503 receipt_log_unavailable.
 */
async function captureWithReceipt(
  ctx: AppContext,
  reservation: CallReservation,
  completion: Completion,
  answer: string | null,
  receipt: { json: string; pointsBefore: number },
): Promise<CaptureOutcome> {
  return retryingBlips(reservation, () => captureHold(ctx.db, { ...captureFacts(reservation, completion, "served", answer), receipt }), () => notRecorded(ctx, reservation));
}

/**
 * Runs a write of the call's receipt; on a failure, again after each ATTACH_RETRY_DELAYS_MS pause. Once those are spent
 * it logs the failure and throws what `giveUp` answers (it puts the call's money where it belongs).
 */
async function retryingBlips<T>(reservation: CallReservation, write: () => Promise<T>, giveUp: () => Promise<AppError>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const reason = err instanceof Error ? err.message.slice(0, 200) : "unknown";
      if (attempt < ATTACH_RETRY_DELAYS_MS.length) {
        logEvent("receipt.log_retry", { inference_id: reservation.holdId, attempt: attempt + 1, reason }, "warn");
        await new Promise((r) => setTimeout(r, ATTACH_RETRY_DELAYS_MS[attempt]));
        continue;
      }
      logEvent("receipt.log_failed", { inference_id: reservation.holdId, network: reservation.network, reason }, "error");
      throw await giveUp();
    }
  }
}

/** A call whose capture (with its receipt) could not be written: nothing was charged for it; answers the route's 503. */
async function notRecorded(ctx: AppContext, reservation: CallReservation): Promise<AppError> {
  countCall(ctx, reservation, "log_failed");
  return reservation.settlement.onNotRecorded(ctx.db, reservation);
}

/** The receipt could not be logged: undoes the capture and answers the route's 503, saying where the money is. */
async function unlogCall(ctx: AppContext, reservation: CallReservation): Promise<AppError> {
  countCall(ctx, reservation, "log_failed");
  const retry = { "Retry-After": "1" };
  const undone = await undoCapture(ctx.db, reservation.holdId, "receipt_log_unavailable").catch((err: unknown) => {
    logEvent("receipt.undo_failed", { inference_id: reservation.holdId, reason: err instanceof Error ? err.message.slice(0, 200) : "unknown" }, "error");
    return { undone: false as const };
  });
  if (!undone.undone) {
    // Only a database that is down (or the paid call's returned change already spent) gets here: the call stays
    // captured with no receipt, which reconcile reports as receipt_missing. Still, nothing unlogged is served.
    logEvent("receipt.captured_unlogged", { inference_id: reservation.holdId, network: reservation.network }, "error");
    return new AppError("receipt_log_unavailable", "the receipt could not be written to the receipt log, so the answer is not served; the call could not be undone either, and the operator is alerted", {}, retry);
  }
  return reservation.settlement.onCaptureUndone(reservation, undone.balanceUnits);
}

/** Captures the hold; a hold that is no longer held means another server finished this call: nothing is sent twice. */
async function capture(
  ctx: AppContext,
  reservation: CallReservation,
  completion: Pick<Completion, "model" | "upstream" | "costUnits" | "latencyMs">,
  outcome: "served" | "aborted",
  answer: string | null = null,
): Promise<CaptureOutcome & { ok: true }> {
  const captured = await captureHold(ctx.db, captureFacts(reservation, completion, outcome, answer));
  if (!captured.ok) throw captureLost(reservation);
  // A served call is counted once its receipt is stored and logged (captureAndLog).
  if (outcome === "aborted") countCall(ctx, reservation, outcome);
  return captured;
}

/** The capture's facts from the call, with the answer its payment keeps (a served paid call's), if any. */
function captureFacts(
  reservation: CallReservation,
  completion: Pick<Completion, "model" | "upstream" | "costUnits" | "latencyMs">,
  outcome: "served" | "aborted",
  answer: string | null,
): CaptureFacts {
  const facts: CaptureFacts = { holdId: reservation.holdId, agentPubkey: reservation.agentPubkey, costUnits: completion.costUnits, model: completion.model, upstream: completion.upstream, latencyMs: completion.latencyMs, outcome };
  return answer === null ? facts : { ...facts, answer };
}

/** The answer the route keeps for the payer's repeat of the request, if it keeps one. */
function keptAnswer(reservation: CallReservation, body: Record<string, unknown>): string | null {
  return reservation.settlement.keepsAnswer() ? JSON.stringify(body) : null;
}

/** The hold was no longer held: another server finished this call, and its answer is not sent twice. */
function captureLost(reservation: CallReservation): AppError {
  logEvent("call.capture_lost", { inference_id: reservation.holdId, network: reservation.network }, "error");
  return new AppError("payment_replay", "this call's hold was already settled by another request; its answer is not served twice");
}

/** The upstream failed: the route puts the hold where it keeps it (the settlement's onUpstreamFailure). */
async function failCall(ctx: AppContext, reservation: CallReservation, err: unknown): Promise<AppError> {
  countCall(ctx, reservation, "upstream_error");
  return reservation.settlement.onUpstreamFailure(ctx.db, reservation, err);
}

/** Counts the call's outcome; a served or aborted call also observes its total time, from serveCall to the capture. */
function countCall(ctx: AppContext, reservation: CallReservation, outcome: "served" | "aborted" | "upstream_error" | "log_failed"): void {
  const m = ctx.metrics;
  m.calls.inc({ route: reservation.settlement.route, network: reservation.network, outcome, code: "" });
  const from = servedFrom.get(reservation);
  if ((outcome === "served" || outcome === "aborted") && from !== undefined) observeStep(ctx.metrics, "total", reservation.network, (performance.now() - from) / 1000);
}

/** When serveCall began, per reservation: the start of the call's `total` step. */
const servedFrom = new WeakMap<CallReservation, number>();

/** The call's headers: the route's own (with the settlement's extensions once served), and the agent's balance once known. */
function callHeaders(reservation: CallReservation, balanceUnits: bigint | null, extensions?: Record<string, unknown>): Record<string, string> {
  return {
    ...reservation.settlement.headers(extensions),
    ...(balanceUnits !== null ? { "X-Credit-Balance-Usdc": formatUnitsAsUsdc(balanceUnits) } : {}),
  };
}

interface Lease {
  stop(): void;
}

/** Renews the call's lease every third of PAYMENT_LEASE_MS until stopped. */
function keepLease(ctx: AppContext, reservation: CallReservation): Lease {
  const leaseMs = ctx.config.PAYMENT_LEASE_MS;
  const timer = setInterval(() => {
    renewLease(ctx.db, reservation.holdId, reservation.settlement.leasedPaymentId, leaseMs)
      .then((held) => {
        if (!held) logEvent("call.lease_lost", { inference_id: reservation.holdId }, "warn");
      })
      .catch((err: unknown) => logEvent("call.lease_renew_failed", { inference_id: reservation.holdId, reason: String(err).slice(0, 200) }, "warn"));
  }, Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
