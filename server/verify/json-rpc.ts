// A small bounded JSON-RPC client over an injected fetch (browser-safe). Every call is time-limited with one short
// retry; a timeout or outage is an error (VerifierFetchError), never a silent `false`.

/** The fetch signature the verifier uses; pass a guarded one on servers that fetch caller-chosen URLs. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type VerifierFetchReason =
  "rpc_unreachable" | "rpc_timeout" | "rpc_error" | "operator_key_unavailable" | "fetch_refused";

/** Infrastructure failure while verifying (RPC down, key fetch failed): the verdict could not be reached. */
export class VerifierFetchError extends Error {
  override name = "VerifierFetchError";
  constructor(
    readonly reason: VerifierFetchReason,
    message: string,
  ) {
    super(message);
  }
}

export interface BoundedFetchOptions {
  fetch: FetchLike;
  /** Per attempt, in ms. Two attempts plus the pause stay within "a few seconds in total". */
  attemptTimeoutMs?: number;
  /** Retries after the first attempt, for network errors, timeouts, 429 and 5xx. */
  retries?: number;
}

const DEFAULT_ATTEMPT_TIMEOUT_MS = 2_500;
const RETRY_PAUSE_MS = 200;

/** Fetches JSON with a per-attempt timeout and a short retry. Throws VerifierFetchError on failure. */
export async function fetchJsonBounded(
  url: string,
  init: RequestInit,
  opts: BoundedFetchOptions,
  failureReason: VerifierFetchReason,
): Promise<unknown> {
  const attempts = 1 + (opts.retries ?? 1);
  const timeoutMs = opts.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  let lastError: VerifierFetchError | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(RETRY_PAUSE_MS);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await opts.fetch(url, { ...init, signal: controller.signal });
      if (res.status === 429 || res.status >= 500) {
        lastError = new VerifierFetchError(failureReason, `${url} answered HTTP ${res.status}`);
        continue;
      }
      if (!res.ok) throw new VerifierFetchError(failureReason, `${url} answered HTTP ${res.status}`);
      try {
        return (await res.json()) as unknown;
      } catch {
        throw new VerifierFetchError(failureReason, `${url} answered with invalid JSON`);
      }
    } catch (err) {
      // Our own errors (a 4xx, bad JSON, a refused address) are final: retrying cannot change them.
      if (err instanceof VerifierFetchError) throw err;
      if (controller.signal.aborted) {
        const reason = failureReason === "rpc_unreachable" ? "rpc_timeout" : failureReason;
        lastError = new VerifierFetchError(reason, `${url} timed out after ${timeoutMs} ms`);
      } else {
        lastError = new VerifierFetchError(failureReason, `${url} could not be reached`);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  throw lastError ?? new VerifierFetchError(failureReason, `${url} could not be reached`);
}

/** Calls one JSON-RPC 2.0 method and returns its `result`. A JSON-RPC error object is a VerifierFetchError. */
export async function jsonRpcCall(
  url: string,
  method: string,
  params: unknown[],
  opts: BoundedFetchOptions,
): Promise<unknown> {
  const body = await fetchJsonBounded(
    url,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    },
    opts,
    "rpc_unreachable",
  );
  if (typeof body !== "object" || body === null)
    throw new VerifierFetchError("rpc_error", `${method}: malformed JSON-RPC answer`);
  const record = body as { result?: unknown; error?: { message?: unknown } };
  if (record.error !== undefined) {
    const message = typeof record.error?.message === "string" ? record.error.message : "unknown error";
    throw new VerifierFetchError("rpc_error", `${method} failed: ${message}`);
  }
  return record.result ?? null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
