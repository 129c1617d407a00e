// The shapes the call pipeline passes between its steps: admit → reserve → serve → capture or release.
import "server-only";
import type { SettledPayment } from "../payments/paid-request-types";
import type { CompletionRequest } from "../upstream";
import type { PaidResource } from "../x402/paid-resources";

/** A reserved call: the hold it is served from, and on the paid route, the payment that hold belongs to. */
export interface CallReservation {
  /** The hold's id, which is also the call's inference id (the receipt's, the log row's and the chunk ids'). */
  holdId: string;
  agentPubkey: string;
  /** CAIP-2 id of the ledger's network. */
  network: string;
  holdUnits: bigint;
  /** The settled payment on the paid route (its hold shares its id); null on the prepaid route. */
  payment: SettledPayment | null;
  /** The paid resource the payment bought (its x402 signed receipt names it); absent: the chat route. */
  paidResource?: PaidResource;
  /**
   * The agent's points as the statement that reserved the hold read them, when it did: the receipt is signed with the
   * next value and stored by the capture's own statement while the points still are these.
   */
  pointsBefore?: number | null;
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
