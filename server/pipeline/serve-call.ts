// Serve → record: the one way a reserved call is served, on both routes, plain or streamed.
// - Serve: the upstream call. The hold's lease (and its payment's) is renewed while it runs, so no other server takes
//   the call over while this one still serves it, however long a stream lasts.
// - Record: once the upstream answered, the call is captured (exactly its cost debited from the hold, the rest
//   returned, the log row written) with its signed receipt, staged for the public log, and its kept answer (paid), in
//   ONE commit; only then does a plain answer leave, and a stream's receipt event. A paid call's answer also carries
//   the x402 signed receipt, issued before the record so that the kept answer keeps it.
// - An answered call is never handed back for a second upstream call, wherever a fault lands:
//   - a blip is ridden out in line;
//   - a database that stays away leaves the record in the process's outbox (record-outbox.ts), written as soon as the
//     database answers, under the call's lease: the paid retry then gets the kept answer with its one receipt, and a
//     stream whose text went out is charged once it is recorded. An undelivered answer the route does not keep
//     (prepaid) waits there as its give-back instead: nothing is charged for it;
//   - a record the database refuses for good (SQLSTATE 22, 23, 54…) is never retried: the call's money is given back
//     (prepaid: released; paid: refunded to the payer's credit, the payment ends `refunded`) and it has no receipt.
// - On an upstream failure before it answered: a prepaid hold is released whole; a paid call's hold is kept for its
//   payment's retry.
// - A client that leaves a stream is charged what was produced, with no receipt and no point.
// Where the routes differ, the reservation's settlement strategy (call-types.ts) decides, and what the call is (a chat
// completion, embeddings) is the route's upstream job: the route builds both, and this module never knows which route
// it serves or what it calls.
import "server-only";
import type { Clock } from "../clock";
import type { AppContext } from "../context/app-context";
import { isPermanentDatabaseError } from "../db/classify-database-error";
import { crashPoint } from "../env/crash-point";
import { AppError } from "../errors";
import { receiptFitsLog } from "../ledger/attach-receipt";
import { captureHold, renewLease, type CaptureFacts, type CaptureOutcome } from "../ledger/credit-holds";
import { logEvent, type Logger } from "../log";
import { observeStep, timeStep } from "../metrics/registry";
import { Prisma, type DbClient, type DbTransaction } from "../db";
import type { Receipt } from "../receipts/receipt-types";
import { encodeReceiptHeader } from "../receipts/sign-receipt";
import { firstEventThenRest, SSE_HEADERS, sseInferenceStream } from "../streaming/sse-inference";
import { formatUnitsAsUsdc } from "../verify";
import { signCallReceipt } from "./call-receipt";
import type {
  CallReservation,
  RouteReceipt,
  ServedCall,
  StreamingJob,
  UpstreamAnswer,
  UpstreamJob,
} from "./call-types";
import { keptAnswerText } from "./kept-answer";

/** Serves a reserved call. Throws the route's AppError when the upstream fails before the first byte. */
export async function serveCall(ctx: AppContext, reservation: CallReservation, job: UpstreamJob): Promise<ServedCall> {
  reservation.servedFrom = ctx.clock.monotonic();
  const lease = keepLease(ctx, reservation);
  try {
    return job.stream
      ? await streamCall(ctx, reservation, job.stream, lease)
      : await completeCall(ctx, reservation, job);
  } finally {
    // A stream keeps its lease until it ends (streamCall hands the stop to the stream's own ending).
    if (!job.stream) lease.stop();
  }
}

async function completeCall(ctx: AppContext, reservation: CallReservation, job: UpstreamJob): Promise<ServedCall> {
  let answer: UpstreamAnswer;
  try {
    // A plain answer's first byte is its last: one request, both steps.
    const pending = timeStep(ctx.metrics, ["upstream_first_byte", "upstream"], reservation.network, () =>
      job.run(ctx.upstream, reservation.holdId),
    );
    crashPoint(ctx.config, "during_inference");
    answer = await pending;
  } catch (err) {
    throw await failCall(ctx, reservation, err);
  }
  // One body: the one sent, and the one kept for the payer's repeat of the request.
  const { body } = answer;
  const routeReceipt = await reservation.settlement.routeReceipt();
  const recorded = await recordServed(ctx, reservation, answer, { body, routeReceipt }, { delivered: false });
  crashPoint(ctx.config, "after_debit");
  const headers = {
    ...callHeaders(reservation, recorded.balanceUnits, routeReceipt?.extensions),
    "X-Service-Receipt": encodeReceiptHeader(recorded.receipt),
    [RECEIPT_PROOF_HEADER]: receiptProofUrl(ctx.config.baseUrl, reservation.holdId),
  };
  crashPoint(ctx.config, "before_response");
  return { body, headers };
}

/**
 * The streamed answer: the payment (if any) is settled and the hold reserved before the first byte; the receipt is the
 * last event before [DONE].
 */
async function streamCall(
  ctx: AppContext,
  reservation: CallReservation,
  job: StreamingJob,
  lease: Lease,
): Promise<ServedCall> {
  const started = ctx.clock.monotonic();
  const abort = new AbortController();
  let events;
  try {
    events = await timeStep(ctx.metrics, "upstream_first_byte", reservation.network, () =>
      firstEventThenRest(job.events(ctx.upstream, abort.signal)),
    );
  } catch (err) {
    // Before the first byte: the plain rules and a plain error response.
    lease.stop();
    throw await failCall(ctx, reservation, err);
  }
  crashPoint(ctx.config, "during_stream");
  const stream = sseInferenceStream({
    inferenceId: reservation.holdId,
    proofUrl: receiptProofUrl(ctx.config.baseUrl, reservation.holdId),
    model: job.model,
    created: Math.floor(ctx.clock.now() / 1000),
    log: ctx.log,
    usageChunk: job.usageChunk,
    events,
    abort,
    finish: async (completion) => {
      lease.stop();
      observeStep(ctx.metrics, "upstream", reservation.network, (ctx.clock.monotonic() - started) / 1000);
      const answer = job.answerOf(completion, reservation.holdId);
      const routeReceipt = await reservation.settlement.routeReceipt();
      // SECURITY: the text has left: whatever happens to its record, this call is never served again.
      const { receipt } = await recordServed(
        ctx,
        reservation,
        answer,
        { body: answer.body, routeReceipt },
        { delivered: true },
      );
      return { receipt, x402Receipt: routeReceipt?.receipt ?? null };
    },
    abortRecorded: async (produced) => {
      lease.stop();
      observeStep(ctx.metrics, "upstream", reservation.network, (ctx.clock.monotonic() - started) / 1000);
      // The client left: what the upstream produced is what it cost; the hold is used, and no receipt is claimed.
      const cut = {
        ...job.interrupted(ctx.upstream, produced),
        latencyMs: Math.round(ctx.clock.monotonic() - started),
      };
      await recordAborted(ctx, reservation, cut);
      logEvent(ctx.log, "call.stream_aborted", {
        inference_id: reservation.holdId,
        network: reservation.network,
        cost: cut.costUnits.toString(),
      });
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

/** The URL of a receipt's inclusion proof. */
export function receiptProofUrl(baseUrl: string, inferenceId: string): string {
  return `${baseUrl}/api/v1/receipts/${inferenceId}/proof`;
}

/** Pauses before each further try of a record that failed on a blip, in line: a passing fault is ridden out. */
const RECORD_RETRY_DELAYS_MS = [25, 100];

/** Captures that sign the receipt again after the agent's points moved under it, before its points are locked. */
const MAX_RECEIPT_CAPTURES = 4;

/** A served call as recorded: its receipt (in the log's staging) and the agent's balance after. */
interface Recorded {
  receipt: Receipt;
  balanceUnits: bigint;
}

/**
 * Records an answered call: its capture with its receipt and kept answer, in one commit. Throws the route's error
 * when that cannot be done now (the record waits in the outbox) or ever (the call's money is given back), and
 * payment_replay when another server finished the call first.
 */
async function recordServed(
  ctx: AppContext,
  reservation: CallReservation,
  answered: UpstreamAnswer,
  kept: { body: Record<string, unknown>; routeReceipt: RouteReceipt | null },
  how: { delivered: boolean },
): Promise<Recorded> {
  const answer = reservation.settlement.keepsAnswer() ? keptAnswerText(kept) : null;
  const receiptOf = (pointsBefore: number) =>
    signCallReceipt(ctx.keys.operator(), reservation, answered, {
      inferenceId: reservation.holdId,
      pointsTotal: pointsBefore + 1,
      atMs: ctx.clock.now(),
    });
  const facts = captureFacts(reservation, answered, "served", answer);
  const write = async (): Promise<Recorded | null> => {
    const recorded = await captureServed(ctx.db, ctx.log, reservation, facts, receiptOf);
    if (recorded) countCall(ctx, reservation, "served");
    return recorded;
  };
  let recorded: Recorded | null;
  try {
    recorded = await inLine(ctx.clock, write);
  } catch (err) {
    // The outbox writes the capture when the call's answer went out, or is kept for the payer's retry; otherwise
    // (prepaid, or a paid route that keeps no answers) the money of an answer nobody got is given back instead.
    const later = async (): Promise<void> => {
      if (!(await write())) captureLost(ctx.log, reservation);
    };
    const bytes = Buffer.byteLength(answer ?? "") + RECORD_OVERHEAD_BYTES;
    throw await notRecorded(ctx, reservation, err, {
      delivered: how.delivered,
      bytes,
      write: how.delivered || answer !== null ? later : null,
    });
  }
  if (!recorded) throw captureLost(ctx.log, reservation);
  return recorded;
}

/** Records a stream the client left: charged what was produced, with no receipt; on failure, as recordServed. */
async function recordAborted(
  ctx: AppContext,
  reservation: CallReservation,
  cut: Pick<UpstreamAnswer, "model" | "upstream" | "costUnits" | "latencyMs">,
): Promise<void> {
  const write = async (): Promise<void> => {
    const captured = await captureHold(ctx.db, captureFacts(reservation, cut, "aborted", null), ctx.log);
    if (captured.ok) countCall(ctx, reservation, "aborted");
    else
      logEvent(
        ctx.log,
        "call.capture_lost",
        { inference_id: reservation.holdId, network: reservation.network },
        "warn",
      );
  };
  try {
    await inLine(ctx.clock, write);
  } catch (err) {
    await notRecorded(ctx, reservation, err, { delivered: true, bytes: RECORD_OVERHEAD_BYTES, write });
  }
}

/** Runs `write`, again after each RECORD_RETRY_DELAYS_MS pause (on `clock`) on any failure but a permanent refusal. */
async function inLine<T>(clock: Clock, write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (isPermanentDatabaseError(err) || attempt >= RECORD_RETRY_DELAYS_MS.length) throw err;
      await clock.sleep(RECORD_RETRY_DELAYS_MS[attempt]!);
    }
  }
}

/** What an outbox record holds besides its answer: its receipt, its facts and its closures, roughly. */
const RECORD_OVERHEAD_BYTES = 4096;

/**
 * An answered call whose record failed: refused for good, its money is given back now (or, if the database is away,
 * as soon as it answers); otherwise its record (`write`, or its give-back when there is none) waits in the outbox.
 * Returns the route's error.
 */
async function notRecorded(
  ctx: AppContext,
  reservation: CallReservation,
  err: unknown,
  how: { delivered: boolean; bytes: number; write: (() => Promise<void>) | null },
): Promise<AppError> {
  countCall(ctx, reservation, "log_failed");
  const { settlement } = reservation;
  const fields = {
    inference_id: reservation.holdId,
    network: reservation.network,
    ...(settlement.leasedPayment ? { payment_id: settlement.leasedPayment.id } : {}),
  };
  const reason = err instanceof Error ? err.message.slice(0, 200) : String(err).slice(0, 200);
  const giveBack = async (): Promise<void> => {
    await settlement.giveBack(ctx.db, reservation);
  };
  const pending = (write: () => Promise<void>) =>
    ctx.state.records.add({
      holdId: reservation.holdId,
      paymentId: settlement.leasedPayment?.id ?? null,
      network: reservation.network,
      bytes: how.bytes,
      write,
      giveBack,
      keep: () => renewLease(ctx.db, reservation.holdId, settlement.leasedPayment, ctx.config.PAYMENT_LEASE_MS),
    });
  if (isPermanentDatabaseError(err) || err instanceof ReceiptTooLarge) {
    // SECURITY: a record the database refuses for good is never retried, and the call never served again.
    logEvent(ctx.log, "call.record_refused", { ...fields, reason }, "error");
    try {
      return settlement.recordRefused(reservation, await settlement.giveBack(ctx.db, reservation));
    } catch (failed) {
      if (!isPermanentDatabaseError(failed)) pending(giveBack);
      else logEvent(ctx.log, "call.record_dropped", { ...fields, reason: "give_back_refused" }, "error");
      return settlement.recordRefused(reservation, null);
    }
  }
  logEvent(ctx.log, "call.record_pending", { ...fields, kept: how.write !== null, reason }, "warn");
  if (how.write) {
    pending(how.write);
    return settlement.recordPending(reservation, { delivered: how.delivered, kept: true, balanceUnits: null });
  }
  // An answer nobody got, and nobody keeps: its money goes back now if anything can be written, else once it can.
  const balanceUnits = await settlement.giveBack(ctx.db, reservation).catch((failed: unknown) => {
    pending(giveBack);
    logEvent(
      ctx.log,
      "call.give_back_pending",
      { ...fields, reason: failed instanceof Error ? failed.message.slice(0, 200) : "unknown" },
      "warn",
    );
    return null;
  });
  return settlement.recordPending(reservation, { delivered: how.delivered, kept: false, balanceUnits });
}

/** A receipt too large for one log entry: no statement could ever store it. */
class ReceiptTooLarge extends Error {
  override name = "ReceiptTooLarge";
}

/**
 * Captures a served call with its receipt in one statement: the receipt is signed with the agent's next points as its
 * hold's statement read them, and captures only while they still are; when another call of the agent moved them
 * first, it is signed again with the points the statement found, and after MAX_RECEIPT_CAPTURES such races, with the
 * agent's points locked for one transaction. Null when the hold was no longer held: another server finished the call
 * (or, when its receipt is this answer's, this call's own commit whose reply was lost: then that is the record).
 */
async function captureServed(
  db: DbClient,
  log: Logger,
  reservation: CallReservation,
  facts: CaptureFacts,
  receiptOf: (pointsBefore: number) => Receipt,
): Promise<Recorded | null> {
  let pointsBefore: number | null = reservation.pointsBefore ?? -1;
  for (let attempt = 0; pointsBefore !== null && attempt < MAX_RECEIPT_CAPTURES; attempt++) {
    const receipt = receiptOf(pointsBefore);
    const captured = await captureHold(db, { ...facts, receipt: { json: receiptJson(receipt), pointsBefore } }, log);
    if (captured.ok) return { receipt, balanceUnits: captured.balanceUnits };
    if (captured.reason === "hold_not_held") return ownRecord(db, reservation, receipt);
    pointsBefore = captured.pointsNow;
  }
  return db.$transaction(async (tx) => {
    const points = await lockPoints(tx, reservation.agentPubkey);
    const receipt = receiptOf(points);
    const captured: CaptureOutcome = await captureHold(
      tx,
      { ...facts, receipt: { json: receiptJson(receipt), pointsBefore: points } },
      log,
    );
    if (captured.ok) return { receipt, balanceUnits: captured.balanceUnits };
    if (captured.reason === "hold_not_held") return ownRecord(tx, reservation, receipt);
    throw new Error("the agent's points moved while locked");
  });
}

function receiptJson(receipt: Receipt): string {
  const json = JSON.stringify(receipt);
  if (!receiptFitsLog(json))
    throw new ReceiptTooLarge(`the receipt of ${String(receipt.inference_id)} is too large for a log entry`);
  return json;
}

/** The agent's points, locked for the transaction (its row made first, for an agent that has none). */
async function lockPoints(tx: DbTransaction, agentPubkey: string): Promise<number> {
  await tx.$executeRaw`INSERT INTO agents (pubkey) VALUES (${agentPubkey}) ON CONFLICT (pubkey) DO NOTHING`;
  const rows = await tx.$queryRaw<
    { points_total: number }[]
  >`SELECT points_total FROM agents WHERE pubkey = ${agentPubkey} FOR UPDATE`;
  return Number(rows[0]!.points_total);
}

/**
 * The record of a hold found captured: this call's own, when its stored receipt covers the same prompt and answer (the
 * commit landed and only its reply was lost), so the answer goes out with that receipt; else null.
 */
async function ownRecord(
  db: DbClient | DbTransaction,
  reservation: CallReservation,
  receipt: Receipt,
): Promise<Recorded | null> {
  const rows = await db.$queryRaw<{ receipt: Receipt | null; balance: bigint | null }[]>(Prisma.sql`
    SELECT l.receipt, (SELECT units FROM balances b WHERE b.agent_pubkey = l.agent_pubkey AND b.network = l.network) AS balance
    FROM inference_logs l WHERE l.id = ${reservation.holdId}::uuid AND l.status = 'served'`);
  const stored = rows[0]?.receipt;
  if (!stored || stored.response_hash !== receipt.response_hash || stored.prompt_hash !== receipt.prompt_hash)
    return null;
  return { receipt: stored, balanceUnits: BigInt(rows[0]!.balance ?? 0n) };
}

/** The capture's facts from the call, with the answer its payment keeps (a served paid call's), if any. */
function captureFacts(
  reservation: CallReservation,
  completion: Pick<UpstreamAnswer, "model" | "upstream" | "costUnits" | "latencyMs">,
  outcome: "served" | "aborted",
  answer: string | null,
): CaptureFacts {
  const facts: CaptureFacts = {
    holdId: reservation.holdId,
    agentPubkey: reservation.agentPubkey,
    costUnits: completion.costUnits,
    model: completion.model,
    upstream: completion.upstream,
    latencyMs: completion.latencyMs,
    outcome,
  };
  return answer === null ? facts : { ...facts, answer };
}

/** The hold was no longer held: another server finished this call, and its answer is not sent twice. */
function captureLost(log: Logger, reservation: CallReservation): AppError {
  logEvent(log, "call.capture_lost", { inference_id: reservation.holdId, network: reservation.network }, "error");
  return new AppError(
    "payment_replay",
    "this call's hold was already settled by another request; its answer is not served twice",
  );
}

/**
 * The upstream failed before it answered: the route puts the hold where it keeps it (the settlement's
 * onUpstreamFailure). When the database is lost doing so, the route gives the money back once it answers again.
 */
async function failCall(ctx: AppContext, reservation: CallReservation, err: unknown): Promise<AppError> {
  countCall(ctx, reservation, "upstream_error");
  try {
    return await reservation.settlement.onUpstreamFailure(ctx.db, reservation, err);
  } catch (failed) {
    reservation.settlement.onDatabaseLost(ctx, reservation, failed);
    throw failed;
  }
}

/** Counts the call's outcome; a served or aborted call also observes its total time, from serveCall to the capture. */
function countCall(
  ctx: AppContext,
  reservation: CallReservation,
  outcome: "served" | "aborted" | "upstream_error" | "log_failed",
): void {
  const m = ctx.metrics;
  m.calls.inc({ route: reservation.settlement.route, network: reservation.network, outcome, code: "" });
  const from = reservation.servedFrom;
  if ((outcome === "served" || outcome === "aborted") && from !== undefined)
    observeStep(ctx.metrics, "total", reservation.network, (ctx.clock.monotonic() - from) / 1000);
}

/** The call's headers: the route's own (with the route receipt's extensions once served), and the agent's balance once known. */
function callHeaders(
  reservation: CallReservation,
  balanceUnits: bigint | null,
  extensions?: Record<string, unknown>,
): Record<string, string> {
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
  const timer = setInterval(
    () => {
      renewLease(ctx.db, reservation.holdId, reservation.settlement.leasedPayment, leaseMs)
        .then((held) => {
          if (!held) logEvent(ctx.log, "call.lease_lost", { inference_id: reservation.holdId }, "warn");
        })
        .catch((err: unknown) =>
          logEvent(
            ctx.log,
            "call.lease_renew_failed",
            { inference_id: reservation.holdId, reason: String(err).slice(0, 200) },
            "warn",
          ),
        );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
