// A chat completion as the pipeline's upstream job, the same on every route that serves one (paid chat, the Responses
// API, prepaid inference): run or streamed on the upstream, its receipt hashing the messages (or a raw prompt) and the
// answered text, its body OpenAI's `chat.completion`.
import "server-only";
import { chatReceiptHashes } from "../receipts/build-receipt";
import type { Completion, CompletionRequest } from "../upstream";
import type { ReceiptPrompt, UpstreamAnswer, UpstreamJob } from "./call-types";
import { completionBody } from "./completion-body";

export interface ChatCall {
  /** The upstream request, with `max_tokens` set to the cap that keeps the worst case within the hold. */
  completion: CompletionRequest;
  stream: boolean;
  /** A stream ends with OpenAI's usage chunk after the finish chunk (`stream_options.include_usage`). */
  usageChunk?: boolean;
  prompt: ReceiptPrompt;
}

/** The upstream job of a chat completion. */
export function chatJob(call: ChatCall): UpstreamJob {
  const answerOf = (completion: Completion, inferenceId: string): UpstreamAnswer => ({
    model: completion.model,
    upstream: completion.upstream,
    costUnits: completion.costUnits,
    latencyMs: completion.latencyMs,
    hashes: chatReceiptHashes({ prompt: call.prompt, responseText: completion.content }),
    body: completionBody(inferenceId, completion),
  });
  return {
    run: async (upstream, inferenceId) => answerOf(await upstream.complete(call.completion), inferenceId),
    stream: call.stream
      ? {
          model: call.completion.model,
          usageChunk: call.usageChunk === true,
          events: (upstream, signal) => upstream.stream(call.completion, { signal }),
          answerOf,
          interrupted: (upstream, produced) =>
            upstream.interrupted(call.completion.model, call.completion.messages, produced),
        }
      : null,
  };
}
