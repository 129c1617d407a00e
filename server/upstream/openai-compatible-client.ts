// A client for any OpenAI-compatible `/chat/completions` provider (OpenRouter by default). Time-bounded, abortable,
// and it never surfaces the provider's raw body or our API key in an error.

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

export interface ProviderRequest {
  model: string;
  messages: readonly { role: string; content: string }[];
  max_tokens: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
}

export interface ProviderAnswer {
  id: string;
  model: string;
  content: string;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: unknown };
}

export interface ProviderConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** POSTs one non-streaming completion; asks OpenRouter for `usage.cost` (harmless elsewhere). */
export async function requestCompletion(cfg: ProviderConfig, req: ProviderRequest, signal?: AbortSignal): Promise<ProviderAnswer> {
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await fetch(`${cfg.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${cfg.apiKey}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ ...req, stream: false, usage: { include: true } }),
      signal: combined,
    });
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

function classifyAbort(signal: AbortSignal | undefined, timeout: AbortSignal, timeoutMs: number): UpstreamError {
  if (signal?.aborted) return new UpstreamError("aborted", "the caller aborted the upstream request");
  if (timeout.aborted) return new UpstreamError("timeout", `provider did not answer within ${timeoutMs} ms`);
  return new UpstreamError("network", "provider could not be reached");
}

function parseAnswer(body: unknown, requestedModel: string): ProviderAnswer {
  const b = body as {
    id?: unknown;
    model?: unknown;
    choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown; cost?: unknown };
  };
  const choice = Array.isArray(b?.choices) ? b.choices[0] : undefined;
  const content = choice?.message?.content;
  const usage = b?.usage;
  const prompt = usage?.prompt_tokens;
  const completion = usage?.completion_tokens;
  if (typeof content !== "string" || typeof prompt !== "number" || typeof completion !== "number" || prompt < 0 || completion < 0) {
    throw new UpstreamError("bad_response", "provider answer lacks choices[0].message.content or usage");
  }
  return {
    id: typeof b.id === "string" ? b.id : "",
    model: typeof b.model === "string" ? b.model : requestedModel,
    content,
    finishReason: typeof choice?.finish_reason === "string" ? choice.finish_reason : "stop",
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cost: usage?.cost },
  };
}
