// The shapes the call pipeline passes between its steps: admit → reserve → serve → capture or release, and the
// settlement strategy a route hands the pipeline so that its own money rules apply without the pipeline knowing them.
import "server-only";
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import type { DbClient } from "../db";
import type { AppError } from "../errors";
import type { ReceiptFacts } from "../receipts/build-receipt";
import type { CompletionRequest } from "../upstream";

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
}

/** The x402 signed receipt of a served paid call: its response extensions, and the receipt itself for a stream's event. */
export interface RouteReceipt {
  extensions: Record<string, unknown>;
  receipt: SignedReceipt;
}

/**
 * What the pipeline asks the route at each step that moves money differently on each route. The paid route keeps a
 * failed call's hold for its payment's one retry; the prepaid route releases it whole.
 */
export interface CallSettlement {
  /** The calls metric's `route` label. */
  route: "paid" | "prepaid";
  /** The payment row whose lease is renewed with the hold's while the call is served; null when there is none. */
  leasedPaymentId: string | null;
  /** Whether the answer body is kept for the payer's repeat of the same request. */
  keepsAnswer(): boolean;
  /** The payment the receipt names, if any. */
  receiptPayment: ReceiptFacts["payment"] | null;
  /** The route's response headers; `extensions` are the settlement's, once the call is served. */
  headers(extensions?: Record<string, unknown>): Record<string, string>;
  /** The route's own signed receipt of the served call (paid: x402 offer-receipt), or null. */
  afterAnswer(): Promise<RouteReceipt | null>;
  /** The upstream failed: puts the hold where the route keeps it, and answers the route's error. */
  onUpstreamFailure(db: DbClient, reservation: CallReservation, err: unknown): Promise<AppError>;
  /** The capture with its receipt could not be written (nothing was captured): same, with a 503. */
  onNotRecorded(db: DbClient, reservation: CallReservation): Promise<AppError>;
  /** The capture was undone because its receipt could not be logged; `balanceUnits` is the agent's balance after. */
  onCaptureUndone(reservation: CallReservation, balanceUnits: bigint): AppError;
  /** The call stopped on a lost database: gives its money back once the database answers again (in the background). */
  onDatabaseLost(db: DbClient, reservation: CallReservation, err: unknown): void;
}

/** What the receipt's prompt hash covers: the messages as sent, or a prepaid call's raw prompt string. */
export type ReceiptPrompt = { messages: readonly unknown[] } | { text: string };

export interface CallRequest {
  /** The upstream request, with `max_tokens` set to the cap that keeps the worst case within the hold. */
  completion: CompletionRequest;
  stream: boolean;
  /** A stream ends with OpenAI's usage chunk (`choices: []`) after the finish chunk (`stream_options.include_usage`). */
  usageChunk?: boolean;
  prompt: ReceiptPrompt;
}

/** The answer to send: a JSON body, or an SSE stream, with the call's headers. */
export type ServedCall =
  | { body: Record<string, unknown>; stream?: undefined; headers: Record<string, string> }
  | { stream: ReadableStream<Uint8Array>; body?: undefined; headers: Record<string, string> };
