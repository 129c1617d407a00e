// A client for any OpenAI-compatible `/chat/completions` provider (OpenRouter by default), whole or streamed (SSE).
// Time-bounded, abortable, and it never surfaces the provider's raw body or our API key in an error.
import "server-only";
import { sseDataText } from "./read-sse";
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
export async function requestCompletion(
  cfg: ProviderConfig,
  req: ProviderRequest,
  signal?: AbortSignal,
): Promise<ProviderAnswer> {
  // `usage: { include: true }` asks OpenRouter for `usage.cost` (harmless elsewhere), here and on the streamed call.
  return parseAnswer(
    await postProviderJson(cfg, "/chat/completions", { ...req, stream: false, usage: { include: true } }, signal),
    req.model,
  );
}

/**
 * POSTs `body` to the provider's `path` with our key, within our time limit and the caller's `signal`, and returns the
 * answer's JSON: a request that fails or is cut off is UpstreamError `aborted`, `timeout` or `network`; an answer that is
 * not JSON `bad_response`, and one that is not 2xx `http_error` (never the provider's raw body, nor our key).
 */
export async function postProviderJson(
  cfg: ProviderConfig,
  path: `/${string}`,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await postToProvider(cfg, path, body, "application/json", combined);
  } catch {
    throw classifyAbort(signal, timeout, cfg.timeoutMs);
  }
  let answer: unknown;
  try {
    answer = await res.json();
  } catch {
    if (signal?.aborted || timeout.aborted) throw classifyAbort(signal, timeout, cfg.timeoutMs);
    throw new UpstreamError("bad_response", `provider answered HTTP ${res.status} without JSON`, res.status);
  }
  if (!res.ok) throw new UpstreamError("http_error", `provider answered HTTP ${res.status}`, res.status);
  return answer;
}

/** POSTs `body` to the provider's `path` with our key. */
function postToProvider(
  cfg: ProviderConfig,
  path: `/${string}`,
  body: Record<string, unknown>,
  accept: string,
  signal: AbortSignal,
): Promise<Response> {
  return fetch(`${cfg.baseUrl.replace(/\/+$/, "")}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${cfg.apiKey}`, "content-type": "application/json", accept },
    body: JSON.stringify(body),
    signal,
  });
}

/** A provider's `usage` when it holds non-negative prompt and completion token counts, else undefined. */
function parseUsage(
  u: { prompt_tokens?: unknown; completion_tokens?: unknown; cost?: unknown } | undefined,
): ProviderAnswer["usage"] | undefined {
  const prompt = u?.prompt_tokens;
  const completion = u?.completion_tokens;
  if (typeof prompt !== "number" || typeof completion !== "number" || prompt < 0 || completion < 0) return undefined;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cost: u?.cost };
}

/** Why an upstream request that threw or was cut off failed: the caller's abort, our time limit, or the network. */
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
    throw new UpstreamError(
      "bad_response",
      "provider answer lacks choices[0].message.content (or tool_calls) or usage",
    );
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
  const wellFormed = value.every(
    (call: unknown) =>
      typeof call === "object" &&
      call !== null &&
      typeof (call as { id?: unknown }).id === "string" &&
      typeof (call as { type?: unknown }).type === "string",
  );
  if (!wellFormed) throw new UpstreamError("bad_response", "provider answer has malformed tool_calls");
  return value;
}

/**
 * One fragment of a streamed tool call, in OpenAI's streaming form: `index` names the call; its first fragment carries
 * `id`, `type` and `function.name`, later ones pieces of `function.arguments`.
 */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export type ProviderStreamEvent =
  | { type: "delta"; content: string }
  | { type: "tool_calls"; toolCalls: ToolCallDelta[] }
  | {
      type: "end";
      id: string;
      model: string;
      finishReason: string;
      usage: ProviderAnswer["usage"] | null;
      toolCalls?: readonly unknown[];
    };

/**
 * POSTs one streaming completion and yields its text deltas and tool-call fragments as they come, then one `end` event
 * with the finish reason, the usage (asked for with `stream_options.include_usage`, and OpenRouter's `usage.include`
 * for the cost) and the whole tool calls the fragments make (as a plain answer carries them). The time limit applies
 * to the answer's start and to every gap between chunks. Breaking out of the loop aborts the request.
 */
export async function* streamCompletion(
  cfg: ProviderConfig,
  req: ProviderRequest,
  signal?: AbortSignal,
): AsyncGenerator<ProviderStreamEvent> {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, idle.signal]) : idle.signal;
  const failure = () => classifyAbort(signal, idle.signal, cfg.timeoutMs);
  try {
    let res: Response;
    try {
      res = await postToProvider(
        cfg,
        "/chat/completions",
        { ...req, stream: true, stream_options: { include_usage: true }, usage: { include: true } },
        "text/event-stream",
        combined,
      );
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
    const toolCalls = new ToolCallAssembly();
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
          const whole = toolCalls.whole();
          yield { type: "end", id, model, finishReason, usage, ...(whole ? { toolCalls: whole } : {}) };
          return;
        }
        const parsed = parseStreamChunk(data);
        if (parsed.id) id = parsed.id;
        if (parsed.model) model = parsed.model;
        if (parsed.finishReason) finishReason = parsed.finishReason;
        if (parsed.usage) usage = parsed.usage;
        if (parsed.content) yield { type: "delta", content: parsed.content };
        if (parsed.toolCalls) yield { type: "tool_calls", toolCalls: parsed.toolCalls.map((d) => toolCalls.add(d)) };
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

/**
 * The whole tool calls of a stream's fragments, by index: the id, type and name of a call's first fragment, its
 * arguments concatenated. A call's first fragment must carry its id (a plain answer's tool calls have ids too); its
 * type is "function" when the provider leaves it out, and the fragment passed on says so.
 */
class ToolCallAssembly {
  private readonly calls = new Map<
    number,
    { id: string; type: string; function: { name: string; arguments: string } }
  >();

  /** Adds one fragment; returns it as it is passed on. */
  add(delta: ToolCallDelta): ToolCallDelta {
    const known = this.calls.get(delta.index);
    if (!known) {
      if (delta.id === undefined)
        throw new UpstreamError("bad_response", "provider streamed a tool call without an id");
      const type = delta.type ?? "function";
      this.calls.set(delta.index, {
        id: delta.id,
        type,
        function: { name: delta.function?.name ?? "", arguments: delta.function?.arguments ?? "" },
      });
      return { ...delta, type };
    }
    if (delta.function?.name && known.function.name === "") known.function.name = delta.function.name;
    if (delta.function?.arguments) known.function.arguments += delta.function.arguments;
    return delta;
  }

  /** The calls in index order, or undefined when the stream made none. */
  whole(): readonly unknown[] | undefined {
    if (this.calls.size === 0) return undefined;
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  }
}

/** A chunk's `delta.tool_calls` as fragments (only the fields OpenAI's form has), or undefined when it has none. */
function parseToolCallDeltas(value: unknown): ToolCallDelta[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new UpstreamError("bad_response", "provider streamed malformed tool_calls");
  if (value.length === 0) return undefined;
  return value.map((raw: unknown, position) => {
    if (typeof raw !== "object" || raw === null)
      throw new UpstreamError("bad_response", "provider streamed malformed tool_calls");
    const d = raw as {
      index?: unknown;
      id?: unknown;
      type?: unknown;
      function?: { name?: unknown; arguments?: unknown } | null;
    };
    const fn = typeof d.function === "object" && d.function !== null ? d.function : undefined;
    const name = typeof fn?.name === "string" ? fn.name : undefined;
    const args = typeof fn?.arguments === "string" ? fn.arguments : undefined;
    return {
      // A provider that leaves out the index sends one call per fragment list, in order.
      index: typeof d.index === "number" && Number.isInteger(d.index) && d.index >= 0 ? d.index : position,
      ...(typeof d.id === "string" && d.id !== "" ? { id: d.id } : {}),
      ...(typeof d.type === "string" ? { type: d.type } : {}),
      ...(fn
        ? { function: { ...(name !== undefined ? { name } : {}), ...(args !== undefined ? { arguments: args } : {}) } }
        : {}),
    };
  });
}

function parseStreamChunk(data: string): {
  id?: string;
  model?: string;
  content?: string;
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
  usage?: ProviderAnswer["usage"];
} {
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
    choices?: { delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; cost?: unknown };
  };
  if (typeof b !== "object" || b === null)
    throw new UpstreamError("bad_response", "provider sent an event that is not an object");
  // OpenRouter reports a failure after the stream has started as an event with `error`.
  if (b.error !== undefined) throw new UpstreamError("http_error", "provider reported an error mid-stream");
  const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
  const content = choice?.delta?.content;
  const toolCalls = parseToolCallDeltas(choice?.delta?.tool_calls);
  const usage = parseUsage(b.usage);
  return {
    ...(typeof b.id === "string" ? { id: b.id } : {}),
    ...(typeof b.model === "string" ? { model: b.model } : {}),
    ...(typeof content === "string" && content !== "" ? { content } : {}),
    ...(toolCalls ? { toolCalls } : {}),
    ...(typeof choice?.finish_reason === "string" ? { finishReason: choice.finish_reason } : {}),
    ...(usage ? { usage } : {}),
  };
}
