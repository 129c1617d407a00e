// The shapes the call pipeline passes between its steps: admit → reserve → serve → capture or release, and the
// settlement strategy a route hands the pipeline so that its own money rules apply without the pipeline knowing them.
import "server-only";
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import type { DbClient } from "../db";
import type { Logger } from "../log";
import type { Clock } from "../clock";
import type { AppError } from "../errors";
import type { ReceiptFacts } from "../receipts/build-receipt";
import type { Completion, StreamEvent, Upstream } from "../upstream";

/** A reserved call: the hold it is served from, and the route's rules for the money behind that hold. */
export interface CallReservation {
  /** The hold's id, which is also the call's inference id (the receipt's, the log row's and the chunk ids'). */
  holdId: string;
  agentPubkey: string;
  /** CAIP-2 id of the ledger's network. */
  network: string;
  holdUnits: bigint;
  /** The route's money rules: server/payments builds the paid route's, server/prepaid the prepaid route's. */
  settlement: CallSettlement;
  /**
   * The agent's points as the statement that reserved the hold read them, when it did: the receipt is signed with the
   * next value and stored by the capture's own statement while the points still are these.
   */
  pointsBefore?: number | null;
  /** When serveCall began serving it (ctx.clock.monotonic()): the start of the call's `total` step. Set by serveCall. */
  servedFrom?: number;
}

/** The x402 signed receipt of a served paid call: its response extensions, and the receipt itself for a stream's event. */
export interface RouteReceipt {
  extensions: Record<string, unknown>;
  receipt: SignedReceipt;
}

/**
 * What the pipeline asks the route at each step that moves money differently on each route. The paid route keeps a
 * failed call's hold for its payment's one retry and keeps a served call's answer for the payer's repeat; the prepaid
 * route releases a failed call's hold whole and keeps no answer.
 */
export interface CallSettlement {
  /** The calls metric's `route` label. */
  route: "paid" | "prepaid";
  /** The payment whose lease is renewed with the hold's while the call is served (by the attempt serving it); null when there is none. */
  leasedPayment: { id: string; attempt: string | null } | null;
  /** Whether the answer is kept for the payer's repeat of the same request. */
  keepsAnswer(): boolean;
  /** The payment the receipt names, if any. */
  receiptPayment: ReceiptFacts["payment"] | null;
  /** The route's response headers; `extensions` are the route receipt's. */
  headers(extensions?: Record<string, unknown>): Record<string, string>;
  /**
   * The route's own signed receipt of the call (paid: x402's offer-receipt), issued before the call is recorded so
   * that its kept answer keeps it: a repeat gets this one back. Null when the route has none.
   */
  routeReceipt(): Promise<RouteReceipt | null>;
  /** The upstream failed before it answered: puts the hold where the route keeps it, and answers the route's error. */
  onUpstreamFailure(db: DbClient, reservation: CallReservation, err: unknown): Promise<AppError>;
  /**
   * The call stopped on a lost database before its upstream answered: gives its money back once the database answers
   * again (in the background, retried by `ctx.clock`, logged to `ctx.log`), if the attempt that served it still holds it.
   */
  onDatabaseLost(ctx: { db: DbClient; clock: Clock; log: Logger }, reservation: CallReservation, err: unknown): void;
  /**
   * Gives an unrecorded call's money back (prepaid: the hold released, nothing charged; paid: the hold returned to the
   * payer's credit and the payment refunded). The agent's balance after, or null when the hold was no longer held.
   */
  giveBack(db: DbClient, reservation: CallReservation): Promise<bigint | null>;
  /**
   * The call's record could not be written: `kept`, its capture (with its receipt and kept answer) waits in the
   * outbox; otherwise its money was given back (`balanceUnits`: the balance after), or waits in the outbox to be
   * (`balanceUnits` null). `delivered`: the answer already went out (a stream). The error to answer.
   */
  recordPending(
    reservation: CallReservation,
    how: { delivered: boolean; kept: boolean; balanceUnits: bigint | null },
  ): AppError;
  /** The database refused the call's record for good and its money was given back (the balance after, when known). */
  recordRefused(reservation: CallReservation, balanceUnits: bigint | null): AppError;
}

/** What a chat call's receipt prompt hash covers: the messages as sent, or a prepaid call's raw prompt string. */
export type ReceiptPrompt = { messages: readonly unknown[] } | { text: string };

/**
 * A served call's answer as the pipeline records and sends it: who served it and what it cost, its receipt's hashes
 * (over exactly what was asked and answered) and the body sent, and kept for the payer's repeat.
 */
export interface UpstreamAnswer {
  model: string;
  /** Provider name for the receipt's `upstream` field. */
  upstream: string;
  costUnits: bigint;
  latencyMs: number;
  hashes: { prompt: string; response: string };
  /** The answer body; its id, if it has one, carries the inference id. */
  body: Record<string, unknown>;
}

/**
 * A route's upstream call, opaque to the pipeline: the route runs it, prices it, hashes what was asked and answered,
 * and builds the answer's body (chat-job.ts for a chat completion, the embeddings route's own job for embeddings).
 */
export interface UpstreamJob {
  /** Runs the call and answers it in one piece, its body carrying `inferenceId`. */
  run(upstream: Upstream, inferenceId: string): Promise<UpstreamAnswer>;
  /** The streamed form, when the request asked for a stream (only a chat completion streams); null: one piece. */
  stream: StreamingJob | null;
}

/** A streamed chat completion: its events for the SSE driver, the answer they make, and a cut-short stream's cost. */
export interface StreamingJob {
  /** The model the stream's chunks name. */
  model: string;
  /** A stream ends with OpenAI's usage chunk (`choices: []`) after the finish chunk (`stream_options.include_usage`). */
  usageChunk: boolean;
  events(upstream: Upstream, signal: AbortSignal): AsyncGenerator<StreamEvent>;
  /** The answer of a stream that finished with `completion`. */
  answerOf(completion: Completion, inferenceId: string): UpstreamAnswer;
  /** A stream the client left: who served it and what it cost, from the text produced so far. */
  interrupted(upstream: Upstream, produced: string): Pick<Completion, "model" | "upstream" | "costUnits">;
}

/** The answer to send: a JSON body, or an SSE stream, with the call's headers. */
export type ServedCall =
  | { body: Record<string, unknown>; stream?: undefined; headers: Record<string, string> }
  | { stream: ReadableStream<Uint8Array>; body?: undefined; headers: Record<string, string> };
