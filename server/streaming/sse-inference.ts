// Streaming an inference as Server-Sent Events in the OpenAI format, shared by the paid and prepaid routes:
// `data: {chat.completion.chunk}` events, one final chunk with the finish reason and usage (with
// `stream_options.include_usage`: the finish chunk, then OpenAI's usage chunk with `choices: []`, every other chunk
// carrying `usage: null`), then the receipt chunk, then `data: [DONE]`. A provider's tool calls pass through as OpenAI
// streams them: chunks whose `delta.tool_calls` holds fragments (index; id, type and name first; then pieces of
// arguments), and the provider's finish reason (`tool_calls`) on the finish chunk. The receipt chunk is a `chat.completion.chunk`
// with `choices: []` whose extra field `service_receipt` holds `{"object":"service.receipt","receipt":{…},…}`: OpenAI
// clients that validate every chunk (the AI SDK, the openai SDK's stream helper) pass it, and a chunk without choices
// adds nothing to the text. The receipt cannot be a header: its response hash covers the concatenated `delta.content`
// of every chunk, known only at the end (text only: tool calls are not covered, as in a plain answer, whose hash covers
// `message.content`). On the paid route the same event carries the x402 receipt (`x402_receipt`, a
// JWS), issued once the answer was served.
//
// The route decides what each ending means for the money, through three callbacks:
// - `finish`: the whole answer was produced and sent; record it and return the signed receipt;
// - `abort`: the client went away mid-stream; the upstream request is aborted and the route records the cost of
//   what was produced, with no receipt (the client never got the whole text);
// - `fail`: the upstream failed mid-stream; the route applies its unserved rules and returns the error event's body.
import "server-only";
import type { SignedReceipt } from "@x402/extensions/offer-receipt";
import { producedText, type Completion, type StreamEvent } from "../upstream";
import type { Receipt } from "../receipts/receipt-types";
import { logEvent, type Logger } from "../log";
import { AppError, errorBody } from "../errors";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;

/** The receipt a stream ends with: the receipt chunk's `service_receipt`. */
export interface ReceiptEvent {
  object: "service.receipt";
  receipt: Receipt;
  /** Where the receipt's inclusion proof in the public receipt log is served once it is in a checkpoint. */
  log_proof_url: string;
  /** Paid route: the x402 offer-receipt extension's signed receipt of the payment (`{ format: "jws", signature }`). */
  x402_receipt?: SignedReceipt;
}

/** The chunk that carries the receipt: an answer chunk with no choices and the receipt in `service_receipt`. */
interface ReceiptChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: [];
  service_receipt: ReceiptEvent;
}

export interface SseInference {
  /** The inference id: chunk ids are `chatcmpl-<id>`, as the non-streamed body's id is. */
  inferenceId: string;
  /** The receipt's inclusion-proof URL, sent with the receipt. */
  proofUrl: string;
  model: string;
  /** The chunks' `created`: when the call was served, in seconds since the epoch. */
  created: number;
  /** Where a stream that could not be finished or recorded is logged. */
  log: Logger;
  /** The usage goes in its own last chunk with `choices: []` (`stream_options.include_usage`), not on the finish chunk. */
  usageChunk?: boolean;
  /** The upstream stream, started with `abort.signal`. */
  events: AsyncGenerator<StreamEvent>;
  abort: AbortController;
  /** Records the served call; returns its signed receipt, and on the paid route the x402 receipt (null elsewhere). */
  finish: (completion: Completion) => Promise<{ receipt: Receipt; x402Receipt: SignedReceipt | null }>;
  abortRecorded: (produced: string) => Promise<void>;
  /** Applies the route's rules for a failed upstream and returns the error the stream ends with. */
  fail: (err: unknown) => Promise<AppError>;
}

/**
 * Starts the upstream stream and waits for its first event, so a provider that fails before the first byte is a plain
 * error response (the route's non-streamed rules), not a 200 stream that errors at once.
 */
export async function firstEventThenRest(events: AsyncGenerator<StreamEvent>): Promise<AsyncGenerator<StreamEvent>> {
  const first = await events.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* events;
  })();
}

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);

/** The fields every chunk of one answer shares. */
interface ChunkBase {
  id: string;
  created: number;
  model: string;
}

/**
 * The chunk builders of one answer, in OpenAI's shape (`logprobs: null` on each choice). With `usageChunk`, every
 * chunk carries `usage: null` and the usage comes in a last chunk with `choices: []`, as OpenAI sends it for
 * `stream_options.include_usage`; without it, the usage rides on the finish chunk. A verifier's text is the same
 * either way: a chunk without choices adds nothing to it.
 */
function answerChunks(base: ChunkBase, usageChunk: boolean) {
  const chunk = (choices: unknown[], usage?: unknown) => ({
    id: base.id,
    object: "chat.completion.chunk",
    created: base.created,
    model: base.model,
    choices,
    ...(usage !== undefined ? { usage } : usageChunk ? { usage: null } : {}),
  });
  return {
    delta: (delta: Record<string, unknown>) => chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]),
    /** The finish chunk and, with `usageChunk`, the usage chunk after it. */
    closing: (finishReason: string, usage: unknown): unknown[] =>
      usageChunk
        ? [chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]), chunk([], usage)]
        : [chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }], usage)],
    // No `usage` key, not even null: it comes after the usage chunk, and a client that merges chunks into one
    // completion (the openai SDK's stream helper) would overwrite the usage with a null.
    receipt: (event: ReceiptEvent): ReceiptChunk => ({
      id: base.id,
      object: "chat.completion.chunk",
      created: base.created,
      model: base.model,
      choices: [],
      service_receipt: event,
    }),
  };
}

/** The SSE body. Cancelling it (the client disconnected) aborts the upstream and records the partial call. */
export function sseInferenceStream(plan: SseInference): ReadableStream<Uint8Array> {
  const chunks = answerChunks(
    { id: `chatcmpl-${plan.inferenceId}`, created: plan.created, model: plan.model },
    plan.usageChunk === true,
  );
  let cancelled = false;

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      // Once the client has gone, the controller is closed: nothing more is sent.
      const send = (data: unknown) => {
        if (!cancelled) controller.enqueue(frame(data));
      };
      const close = () => {
        if (!cancelled) controller.close();
      };
      let produced = "";
      let completion: Completion | null = null;
      try {
        let first = true;
        for await (const event of plan.events) {
          if (cancelled) break;
          if (event.type === "done") {
            completion = event.completion;
            continue;
          }
          produced += producedText(event);
          const delta = event.type === "delta" ? { content: event.content } : { tool_calls: event.toolCalls };
          // The first chunk names the role; OpenAI's first tool-call chunk has a null content beside it.
          send(
            chunks.delta(
              first
                ? { role: "assistant", ...(event.type === "tool_calls" ? { content: null } : {}), ...delta }
                : delta,
            ),
          );
          first = false;
        }
        if (!cancelled && !completion) throw new Error("the upstream stream ended without its completion");
      } catch (err) {
        if (!cancelled) {
          const failure = await plan.fail(err).catch(() => new AppError("upstream_error", "the model provider failed"));
          send({ error: errorBody(failure.code, failure.message, failure.details).error });
          close();
          return;
        }
      }
      if (cancelled || !completion) {
        await plan
          .abortRecorded(produced)
          .catch((err: unknown) =>
            logEvent(
              plan.log,
              "stream.abort_record_failed",
              { inference_id: plan.inferenceId, reason: String(err).slice(0, 200) },
              "error",
            ),
          );
        return;
      }
      for (const closing of chunks.closing(completion.finishReason, completion.usage)) send(closing);
      let receipts: { receipt: Receipt; x402Receipt: SignedReceipt | null };
      try {
        receipts = await plan.finish(completion);
      } catch (err) {
        logEvent(
          plan.log,
          "stream.finish_failed",
          { inference_id: plan.inferenceId, reason: String(err).slice(0, 200) },
          "error",
        );
        // A route's own refusal (e.g. the receipt log was unavailable: nothing charged) says so; anything else is generic.
        const failure =
          err instanceof AppError
            ? errorBody(err.code, err.message, err.details)
            : errorBody("internal_error", "the call could not be recorded; no receipt was issued");
        send({ error: failure.error });
        close();
        return;
      }
      const { receipt, x402Receipt } = receipts;
      send(
        chunks.receipt({
          object: "service.receipt",
          receipt,
          log_proof_url: plan.proofUrl,
          ...(x402Receipt ? { x402_receipt: x402Receipt } : {}),
        }),
      );
      send("[DONE]");
      close();
    },
    cancel() {
      cancelled = true;
      plan.abort.abort();
    },
  });
}

/**
 * A served call's stored answer as the stream it was (its text, and its tool calls whole, in one chunk; the closing
 * chunks with the finish reason and usage, the receipt chunk, [DONE]): the receipt's response hash covers the same
 * concatenated text.
 */
export function replayedSseStream(
  body: StoredCompletionBody,
  receiptEvent: ReceiptEvent,
  opts: { usageChunk?: boolean } = {},
): ReadableStream<Uint8Array> {
  const choice = body.choices[0];
  const chunks = answerChunks({ id: body.id, created: body.created, model: body.model }, opts.usageChunk === true);
  const toolCalls = choice?.message.tool_calls?.map((call, index) => ({ index, ...(call as Record<string, unknown>) }));
  const events: unknown[] = [
    chunks.delta({
      role: "assistant",
      content: choice?.message.content ?? "",
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    }),
    ...chunks.closing(choice?.finish_reason ?? "stop", body.usage),
    chunks.receipt(receiptEvent),
    "[DONE]",
  ];
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(frame(event));
      controller.close();
    },
  });
}

/** The stored `chat.completion` body of a served call (completion-body.ts). */
export interface StoredCompletionBody {
  id: string;
  created: number;
  model: string;
  choices: { message: { content: string | null; tool_calls?: readonly unknown[] }; finish_reason: string | null }[];
  usage: unknown;
}
