// The chat messages a completion carries, as OpenAI-compatible clients send them (content as text or as parts, tool
// calls), and what each upstream can read of them: the built-in model reads text only.
import "server-only";
import type { CatalogModel } from "./model-catalog";

/**
 * One part of a message's content: text, an assistant's earlier refusal, or a part only a provider reads (image_url,
 * input_audio, file). Any part may carry a provider's cache marker.
 */
export type ContentPart =
  | { type: "text"; text: string; [field: string]: unknown }
  | { type: "refusal"; refusal: string }
  | { type: "image_url" | "input_audio" | "file"; [field: string]: unknown };

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
  /** An earlier audio answer; the provider needs its id only. */
  audio?: { id: string; [field: string]: unknown } | null | undefined;
  /** An answer's citations, as the SDK returns them: never sent to the provider. */
  annotations?: readonly unknown[] | undefined;
  /** The openai SDK helpers' parsed structured output, on an answer they returned: never sent to the provider. */
  parsed?: unknown;
}

/** Optional OpenAI parameters passed to the provider as sent; the built-in model ignores them. */
export interface CompletionParams {
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  user?: string;
  safety_identifier?: string;
  tools?: readonly unknown[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  functions?: readonly unknown[];
  function_call?: unknown;
  response_format?: unknown;
  seed?: number;
  /** One choice per call: the price buys one answer, and the receipt covers one. */
  n?: 1;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
  logprobs?: boolean;
  top_logprobs?: number;
  reasoning_effort?: string;
  verbosity?: string;
  prompt_cache_key?: string;
  prompt_cache_retention?: string;
  prompt_cache_options?: unknown;
}

/**
 * A message as the provider gets it: as sent, less what only an answer carries (the SDK's `annotations`, an audio
 * answer's data and transcript, the SDK helpers' `parsed` and each tool call's `function.parsed_arguments`), which an
 * OpenAI-compatible provider may refuse in a request.
 */
export function providerMessage(message: UpstreamMessage): UpstreamMessage {
  const parsedArguments = message.tool_calls?.some((call) => hasParsedArguments(call)) === true;
  if (
    message.annotations === undefined &&
    (message.audio === undefined || message.audio === null) &&
    !("parsed" in message) &&
    !parsedArguments
  )
    return message;
  const { annotations: _annotations, audio, parsed: _parsed, ...rest } = message;
  if (parsedArguments) rest.tool_calls = rest.tool_calls!.map(withoutParsedArguments);
  return audio ? { ...rest, audio: { id: audio.id } } : audio === null ? { ...rest, audio } : rest;
}

function hasParsedArguments(call: unknown): boolean {
  const fn = (call as { function?: unknown }).function;
  return typeof fn === "object" && fn !== null && "parsed_arguments" in fn;
}

function withoutParsedArguments(call: unknown): unknown {
  if (!hasParsedArguments(call)) return call;
  const { function: fn, ...rest } = call as { function: Record<string, unknown> };
  const { parsed_arguments: _parsedArguments, ...kept } = fn;
  return { ...rest, function: kept };
}

/**
 * The text of a message: its content string, or its text and refusal parts joined by newlines (other parts carry no
 * text).
 */
export function messageText(message: Pick<UpstreamMessage, "content">): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .flatMap((part) =>
      part.type === "text" ? [part.text as string] : part.type === "refusal" ? [part.refusal as string] : [],
    )
    .join("\n");
}

/**
 * The first content part `model` cannot read, as a field path (`messages.<i>.content.<j>`), or null. The built-in
 * model reads text (and an assistant's refusal text) only; a provider model gets every part and answers for itself.
 */
export function unreadablePart(
  model: Pick<CatalogModel, "provider">,
  messages: readonly Pick<UpstreamMessage, "content">[],
): string | null {
  if (model.provider !== "local") return null;
  for (const [i, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    const j = message.content.findIndex((part) => part.type !== "text" && part.type !== "refusal");
    if (j >= 0) return `messages.${i}.content.${j}`;
  }
  return null;
}
