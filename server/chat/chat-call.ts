// A chat body as the upstream job it asks for, and what of it the provider bills as prompt: shared by the paid and the
// prepaid chat calls, so both pass the same parameters and hold for the same worst case.
import "server-only";
import type { UpstreamJob } from "../pipeline/call-types";
import { chatJob } from "../pipeline/chat-job";
import type { CompletionParams } from "../upstream";
import { PASSED_PARAMS, type ChatRequest } from "../schemas/chat-request-schema";

/**
 * What the provider reads as prompt, for the worst-case cost: the messages, and the tool and function definitions
 * (a provider bills them as input tokens too).
 */
export function promptSent(body: ChatRequest): readonly unknown[] {
  return [...body.messages, ...(body.tools ?? []), ...(body.functions ?? [])];
}

/** The upstream job of a chat body: the messages and the optional parameters as sent, the receipt over the messages. */
export function chatCall(body: ChatRequest, modelId: string, cap: number): UpstreamJob {
  const params = Object.fromEntries(
    PASSED_PARAMS.filter((key) => body[key] !== undefined && body[key] !== null).map((key) => [key, body[key]]),
  ) as CompletionParams;
  return chatJob({
    completion: { ...params, model: modelId, messages: body.messages, max_tokens: cap },
    stream: body.stream === true,
    usageChunk: body.stream_options?.include_usage === true,
    prompt: { messages: body.messages },
  });
}
