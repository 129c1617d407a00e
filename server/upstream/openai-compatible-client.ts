// A client for any OpenAI-compatible `/chat/completions` provider (OpenRouter by default), whole or streamed (SSE).
// Time-bounded, abortable, and it never surfaces the provider's raw body or our API key in an error.
import "server-only";
import { sseDataText } from "../streaming/read-sse";
import type { CompletionParams, UpstreamMessage } from "./chat-message";

export type UpstreamFailure = "timeout" | "http_error" | "bad_response" | "network" | "aborted" | "model_unavailable";

/** A failed upstream call, with a closed reason and a message safe to log. */
export class UpstreamError extends Error {
  override name = "UpstreamError";
  constructor(
    readonly reason: UpstreamFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ProviderRequest extends CompletionParams {
  model: string;
  messages: readonly UpstreamMessage[];
  max_tokens: number;
}

export interface ProviderAnswer {
  id: string;
  model: string;
  /** The answer's text; "" when it only calls tools. */
  content: string;
  /** The tool calls the answer makes, as the provider sent them; absent when it makes none. */
  toolCalls?: readonly unknown[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: unknown };
}

export interface ProviderConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** POSTs one non-streaming completion. */
export async function requestCompletion(cfg: ProviderConfig, req: ProviderRequest, signal?: AbortSignal): Promise<ProviderAnswer> {
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await postChatCompletions(cfg, { ...req, stream: false }, "application/json", combined);
  } catch {
    throw classifyAbort(signal, timeout, cfg.timeoutMs);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    if (signal?.aborted || timeout.aborted) throw classifyAbort(signal, timeout, cfg.timeoutMs);
    throw new UpstreamError("bad_response", `provider answered HTTP ${res.status} without JSON`, res.status);
  }
  if (!res.ok) throw new UpstreamError("http_error", `provider answered HTTP ${res.status}`, res.status);
  return parseAnswer(body, req.model);
}

/** POSTs to the provider's /chat/completions with our key; asks OpenRouter for `usage.cost` (harmless elsewhere). */
function postChatCompletions(cfg: ProviderConfig, body: Record<string, unknown>, accept: string, signal: AbortSignal): Promise<Response> {
  return fetch(`${cfg.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${cfg.apiKey}`, "content-type": "application/json", accept },
    body: JSON.stringify({ ...body, usage: { include: true } }),
    signal,
  });
}

/** A provider's `usage` when it holds non-negative prompt and completion token counts, else undefined. */
function parseUsage(u: { prompt_tokens?: unknown; completion_tokens?: unknown; cost?: unknown } | undefined): ProviderAnswer["usage"] | undefined {
  const prompt = u?.prompt_tokens;
  const completion = u?.completion_tokens;
  if (typeof prompt !== "number" || typeof completion !== "number" || prompt < 0 || completion < 0) return undefined;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cost: u?.cost };
}

function classifyAbort(signal: AbortSignal | undefined, timeout: AbortSignal, timeoutMs: number): UpstreamError {
  if (signal?.aborted) return new UpstreamError("aborted", "the caller aborted the upstream request");
  if (timeout.aborted) return new UpstreamError("timeout", `provider did not answer within ${timeoutMs} ms`);
  return new UpstreamError("network", "provider could not be reached");
}

function parseAnswer(body: unknown, requestedModel: string): ProviderAnswer {
  const b = body as {
    id?: unknown;
    model?: unknown;
    choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; cost?: unknown };
  };
  const choice = Array.isArray(b?.choices) ? b.choices[0] : undefined;
  const content = choice?.message?.content;
  const toolCalls = parseToolCalls(choice?.message?.tool_calls);
  const usage = parseUsage(b?.usage);
  // An answer that only calls tools has no text (content null or absent).
  if (!(typeof content === "string" || (toolCalls && (content === null || content === undefined))) || !usage) {
    throw new UpstreamError("bad_response", "provider answer lacks choices[0].message.content (or tool_calls) or usage");
  }
  return {
    id: typeof b.id === "string" ? b.id : "",
    model: typeof b.model === "string" ? b.model : requestedModel,
    content: typeof content === "string" ? content : "",
    ...(toolCalls ? { toolCalls } : {}),
    finishReason: typeof choice?.finish_reason === "string" ? choice.finish_reason : "stop",
    usage,
  };
}

/** A provider's tool calls when they are a non-empty array of `{ id, type, … }` objects, else undefined. */
function parseToolCalls(value: unknown): readonly unknown[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const wellFormed = value.every((call: unknown) => typeof call === "object" && call !== null && typeof (call as { id?: unknown }).id === "string" && typeof (call as { type?: unknown }).type === "string");
  if (!wellFormed) throw new UpstreamError("bad_response", "provider answer has malformed tool_calls");
  return value;
}

export type ProviderStreamEvent =
  | { type: "delta"; content: string }
  | { type: "end"; id: string; model: string; finishReason: string; usage: ProviderAnswer["usage"] | null };

/**
 * POSTs one streaming completion and yields its text deltas, then one `end` event with the finish reason and the
 * usage (asked for with `stream_options.include_usage`, and OpenRouter's `usage.include` for the cost). The time limit
 * applies to the answer's start and to every gap between chunks. Breaking out of the loop aborts the request.
 */
export async function* streamCompletion(cfg: ProviderConfig, req: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderStreamEvent> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, idle.signal]) : idle.signal;
  const failure = () => classifyAbort(signal, idle.signal, cfg.timeoutMs);
  try {
    let res: Response;
    try {
      res = await postChatCompletions(cfg, { ...req, stream: true, stream_options: { include_usage: true } }, "text/event-stream", combined);
    } catch {
      throw failure();
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new UpstreamError("http_error", `provider answered HTTP ${res.status}`, res.status);
    }
    if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
      await res.body.cancel().catch(() => undefined);
      throw new UpstreamError("bad_response", "provider did not answer with an event stream");
    }
    let id = "";
    let model = req.model;
    let finishReason = "stop";
    let usage: ProviderAnswer["usage"] | null = null;
    const events = sseDataText(res.body);
    try {
      for (;;) {
        let next: IteratorResult<string>;
        try {
          next = await events.next();
        } catch {
          throw failure();
        }
        clearTimeout(timer);
        timer = setTimeout(() => idle.abort(), cfg.timeoutMs);
        if (next.done) throw new UpstreamError("bad_response", "provider's stream ended without [DONE]");
        const data = next.value;
        if (data === "") continue; // a comment (OpenRouter's ": OPENROUTER PROCESSING") or an empty event
        if (data === "[DONE]") {
          yield { type: "end", id, model, finishReason, usage };
          return;
        }
        const parsed = parseStreamChunk(data);
        if (parsed.id) id = parsed.id;
        if (parsed.model) model = parsed.model;
        if (parsed.finishReason) finishReason = parsed.finishReason;
        if (parsed.usage) usage = parsed.usage;
        if (parsed.content) yield { type: "delta", content: parsed.content };
      }
    } finally {
      await events.return(undefined);
    }
  } finally {
    clearTimeout(timer);
    // A consumer that stops early (the client went away) ends the provider's request too.
    idle.abort();
  }
}

function parseStreamChunk(data: string): { id?: string; model?: string; content?: string; finishReason?: string; usage?: ProviderAnswer["usage"] } {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    throw new UpstreamError("bad_response", "provider sent an event that is not JSON");
  }
  const b = body as {
    id?: unknown;
    model?: unknown;
    error?: unknown;
    choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; cost?: unknown };
  };
  if (typeof b !== "object" || b === null) throw new UpstreamError("bad_response", "provider sent an event that is not an object");
  // OpenRouter reports a failure after the stream has started as an event with `error`.
  if (b.error !== undefined) throw new UpstreamError("http_error", "provider reported an error mid-stream");
  const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
  const content = choice?.delta?.content;
  const usage = parseUsage(b.usage);
  return {
    ...(typeof b.id === "string" ? { id: b.id } : {}),
    ...(typeof b.model === "string" ? { model: b.model } : {}),
    ...(typeof content === "string" && content !== "" ? { content } : {}),
    ...(typeof choice?.finish_reason === "string" ? { finishReason: choice.finish_reason } : {}),
    ...(usage ? { usage } : {}),
  };
}
