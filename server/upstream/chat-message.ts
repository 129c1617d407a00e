// The chat messages a completion carries, as OpenAI-compatible clients send them (content as text or as parts, tool
// calls), and what each upstream can read of them: the built-in model reads text only.
import "server-only";
import type { CatalogModel } from "./model-catalog";

/** One part of a message's content: text, or a part only a provider reads (image_url, input_audio, file). */
export type ContentPart = { type: "text"; text: string } | { type: "image_url" | "input_audio" | "file"; [field: string]: unknown };

/** A chat message as sent; passed to the provider unchanged. */
export interface UpstreamMessage {
  role: string;
  /** Text, parts, or null (an assistant message that only calls tools). */
  content?: string | readonly ContentPart[] | null | undefined;
  name?: string | undefined;
  tool_calls?: readonly unknown[] | undefined;
  tool_call_id?: string | undefined;
  function_call?: unknown;
  refusal?: string | null | undefined;
}

/** Optional OpenAI parameters passed to the provider as sent; the built-in model ignores them. */
export interface CompletionParams {
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  user?: string;
  tools?: readonly unknown[];
  tool_choice?: unknown;
  response_format?: unknown;
  seed?: number;
  /** One choice per call: the price buys one answer, and the receipt covers one. */
  n?: 1;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
  logprobs?: boolean;
  top_logprobs?: number;
}

/** The text of a message: its content string, or its text parts joined by newlines (other parts carry no text). */
export function messageText(message: Pick<UpstreamMessage, "content">): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/**
 * The first content part `model` cannot read, as a field path (`messages.<i>.content.<j>`), or null. The built-in
 * model reads text only; a provider model gets every part and answers for itself.
 */
export function unreadablePart(model: Pick<CatalogModel, "provider">, messages: readonly Pick<UpstreamMessage, "content">[]): string | null {
  if (model.provider !== "local") return null;
  for (const [i, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    const j = message.content.findIndex((part) => part.type !== "text");
    if (j >= 0) return `messages.${i}.content.${j}`;
  }
  return null;
}
