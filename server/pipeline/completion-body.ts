// The OpenAI `chat.completion` body of a served call, the same for both routes; its id carries the inference id.
import "server-only";
import type { Completion } from "../upstream";

export function completionBody(inferenceId: string, completion: Completion): Record<string, unknown> {
  return {
    id: `chatcmpl-${inferenceId}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: completion.model,
    choices: [{ index: 0, message: { role: "assistant", content: completion.content }, finish_reason: completion.finishReason }],
    usage: completion.usage,
  };
}
