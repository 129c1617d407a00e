// Reading a streamed answer as a client (the CLI, tests): the `data:` payloads of a Server-Sent Events body, and the
// pieces a verifier needs from them: the chunks, their concatenated text, and the receipt (a chunk's
// `service_receipt`, or the bare `{"object":"service.receipt"}` event that streams before it sent). Pure and
// browser-safe (fetch's ReadableStream and TextDecoder only).
import "server-only";
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import type { Receipt } from "../receipts/receipt-types";

/**
 * Yields each event's `data` text as it arrives (multi-line data joined by "\n"), and "" for an event without data
 * (a comment such as OpenRouter's ": OPENROUTER PROCESSING" keep-alive). Read errors propagate.
 */
export async function* sseDataText(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let cut: RegExpExecArray | null;
      while ((cut = /\r?\n\r?\n/.exec(buffered))) {
        const event = buffered.slice(0, cut.index);
        buffered = buffered.slice(cut.index + cut[0].length);
        yield event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Yields each event's `data` (JSON-parsed; `[DONE]` as the string), as it arrives. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  for await (const data of sseDataText(body)) {
    if (data === "") continue;
    yield data === "[DONE]" ? data : (JSON.parse(data) as unknown);
  }
}

export interface StreamedAnswer {
  /** The `chat.completion.chunk` events but the receipt chunk, in order: what a verifier takes as the response. */
  chunks: unknown[];
  /** Their concatenated `delta.content`: what `choices[0].message.content` would have been. */
  text: string;
  /** The signed receipt from the receipt chunk's `service_receipt`, or null when the stream carried none. */
  receipt: Receipt | null;
  /** The same `service_receipt`'s x402 signed receipt (paid route), or null. */
  x402Receipt: SignedReceipt | null;
  /** The error event's body, when the stream ended with one. */
  error: { code?: string; message?: string } | null;
  /** Whether `data: [DONE]` arrived. */
  done: boolean;
}

/** Called as the answer arrives, for a client that shows it live (the CLI's tokens and timeline). */
export interface StreamedAnswerListener {
  onContent?: (content: string) => void;
  onReceipt?: () => void;
}

interface ReceiptBody {
  object?: unknown;
  receipt?: Receipt;
  x402_receipt?: SignedReceipt;
}

/** The Responses stream's last events: their `response` carries the receipt as `service_receipt`. */
const RESPONSES_FINAL_EVENTS = new Set(["response.completed", "response.incomplete"]);

/**
 * The receipt an event carries: a chunk's `service_receipt`, a Responses stream's last event's
 * `response.service_receipt`, or (from a server older than the receipt chunk) the event itself when its `object` is
 * `service.receipt`. Null for every other event.
 */
export function receiptOfEvent(data: unknown): { receipt: Receipt; x402Receipt: SignedReceipt | null } | null {
  if (typeof data !== "object" || data === null) return null;
  const event = data as ReceiptBody & {
    service_receipt?: ReceiptBody;
    type?: unknown;
    response?: { service_receipt?: ReceiptBody };
  };
  const body =
    event.object === "chat.completion.chunk"
      ? event.service_receipt
      : typeof event.type === "string" && RESPONSES_FINAL_EVENTS.has(event.type)
        ? event.response?.service_receipt
        : event;
  if (typeof body !== "object" || body === null || body.object !== "service.receipt" || !body.receipt) return null;
  return { receipt: body.receipt, x402Receipt: body.x402_receipt ?? null };
}

/** Reads a whole streamed answer. */
export async function readStreamedAnswer(
  body: ReadableStream<Uint8Array>,
  listener: StreamedAnswerListener = {},
): Promise<StreamedAnswer> {
  const answer: StreamedAnswer = { chunks: [], text: "", receipt: null, x402Receipt: null, error: null, done: false };
  for await (const data of sseData(body)) {
    if (data === "[DONE]") {
      answer.done = true;
      continue;
    }
    const event = data as {
      object?: unknown;
      error?: StreamedAnswer["error"];
      choices?: { delta?: { content?: unknown } }[];
    };
    const receipt = receiptOfEvent(data);
    if (receipt) {
      answer.receipt = receipt.receipt;
      answer.x402Receipt = receipt.x402Receipt;
      listener.onReceipt?.();
    } else if (event.error) answer.error = event.error;
    else if (event.object === "chat.completion.chunk") {
      answer.chunks.push(data);
      const content = event.choices?.[0]?.delta?.content;
      if (typeof content === "string" && content !== "") {
        answer.text += content;
        listener.onContent?.(content);
      }
    }
  }
  return answer;
}
