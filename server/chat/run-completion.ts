// Runs the inference for a chat request and shapes the OpenAI chat-completion body around it.
import type { Completion, CompletionRequest, Upstream } from "../upstream";
import type { ChatRequest } from "./chat-request-schema";

export interface CompletionResult extends Completion {
  /** The OpenAI chat-completion body; `id` carries the receipt's inference id. */
  body(inferenceId: string): Record<string, unknown>;
}

/** The upstream request for a chat body. */
export function completionRequest(body: ChatRequest): CompletionRequest {
  return {
    model: body.model,
    messages: body.messages,
    ...(body.max_tokens ?? body.max_completion_tokens ? { max_tokens: body.max_tokens ?? body.max_completion_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(body.stop !== undefined ? { stop: body.stop } : {}),
  };
}

/** Calls the upstream once. Throws UpstreamError on failure. */
export async function runCompletion(upstream: Upstream, body: ChatRequest, signal?: AbortSignal): Promise<CompletionResult> {
  const completion = await upstream.complete(completionRequest(body), signal ? { signal } : {});
  return {
    ...completion,
    body: (inferenceId) => ({
      id: `chatcmpl-${inferenceId}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: completion.model,
      choices: [{ index: 0, message: { role: "assistant", content: completion.content }, finish_reason: completion.finishReason }],
      usage: completion.usage,
    }),
  };
}
