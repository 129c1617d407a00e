// The OpenAI `chat.completion` body of a served call, the same for both routes; its id carries the inference id.
// Every field OpenAI's clients read is present: `refusal` and `logprobs` are null and `annotations` empty (no refusal,
// log-probabilities or citations are relayed), and a provider's tool calls are passed on as it sent them.
import "server-only";
import type { Completion } from "../upstream";

/** The `chat.completion` body; `content` stays a string ("" beside tool calls), the text the receipt's hash covers. */
export function completionBody(inferenceId: string, completion: Completion): Record<string, unknown> {
  const message = {
    role: "assistant",
    content: completion.content,
    refusal: null,
    annotations: [],
    ...(completion.toolCalls ? { tool_calls: completion.toolCalls } : {}),
  };
  return {
    id: `chatcmpl-${inferenceId}`,
    object: "chat.completion",
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: completion.finishReason }],
    usage: completion.usage,
  };
}
