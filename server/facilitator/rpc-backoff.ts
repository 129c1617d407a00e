// Talking to a rate-limited chain RPC politely: every server-side RPC client (Solana through @solana/kit, Base through
// viem) goes through here. A request is time-limited; 429, 503 and transport failures are retried with full-jitter
// backoff within a bounded number of attempts and a bounded total time; a 429's Retry-After (capped) closes a per-URL
// gate that every request sharing the gates (a runtime's) to that RPC waits at, so one limited key is not hammered by
// its neighbours.
// An answer from the chain, including a JSON-RPC error (the chain refusing something), is never retried here.
import "server-only";
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  isSolanaError,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  type Rpc,
  type RpcTransport,
  type SolanaRpcApi,
} from "@solana/kit";
import { http, type HttpTransport } from "viem";
import { CHAIN_UNAVAILABLE } from "./chain-unavailable";
import type { SignetMetrics } from "../metrics/registry";
import { systemClock, type Clock } from "../clock";

/** Per attempt: a real RPC answers in well under a second; 10 s means it is not going to. */
const RPC_ATTEMPT_TIMEOUT_MS = 10_000;
/** Attempts per request, the first included. */
const RPC_MAX_ATTEMPTS = 5;
/** Total time one request may spend waiting and retrying before it is the chain being unavailable. */
const RPC_MAX_TOTAL_MS = 30_000;
/** Full-jitter backoff: the nth retry sleeps a uniform time in [0, min(cap, base · 2ⁿ)]. */
const RPC_BACKOFF_BASE_MS = 200;
const RPC_BACKOFF_CAP_MS = 5_000;
/** Longest Retry-After honoured: a provider asking for minutes is, for a paid call, an outage. */
const RPC_RETRY_AFTER_CAP_MS = 10_000;

export type RpcRetryReason = "rate_limited" | "unavailable" | "timeout" | "transport";

export interface RpcBackoffOptions {
  /** Metrics label: the network's CAIP-2 id. */
  network: string;
  attemptTimeoutMs?: number;
  maxAttempts?: number;
  maxTotalMs?: number;
  baseDelayMs?: number;
  capDelayMs?: number;
  retryAfterCapMs?: number;
  /** The gates this client waits at, shared by every client of a runtime; default: its own. */
  gates?: RpcGates;
  /** Where retries are counted (signet_rpc_retries_total); default: nowhere. */
  metrics?: SignetMetrics;
  /** Where deadlines and gates read time (the gates hold epoch ms); default: the wall clock. */
  clock?: Clock;
}

/** Per RPC URL: the time (ms since epoch) before which no request may be sent to it. */
export type RpcGates = Map<string, number>;

/** The RPC could not be reached within the bounds. Its message starts with CHAIN_UNAVAILABLE: it is never the payment's fault. */
export class RpcUnavailableError extends Error {
  override name = "RpcUnavailableError";
  constructor(
    readonly url: string,
    readonly reason: RpcRetryReason,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(`${CHAIN_UNAVAILABLE}: ${redact(url)} gave up after ${attempts} attempt(s) (${reason})`, options);
  }
}

/**
 * Rethrows the RpcUnavailableError that `err` wraps (viem wraps a failed fetch in its own HttpRequestError, whose
 * message does not start with CHAIN_UNAVAILABLE), or `err` itself: callers that read messages see the outage as one.
 */
export function surfaceRpcUnavailable(err: unknown): never {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RpcUnavailableError) throw e;
  }
  throw err;
}

/** One attempt's outcome as the caller classifies it: a value to return, a retryable failure, or a final error. */
type Attempt<T> =
  | { ok: true; value: T }
  | { ok: false; reason: RpcRetryReason; retryAfterMs?: number; error: unknown }
  | { ok: "final"; error: unknown };

/** Closes the gate of `url` until `until` (a later time wins; an earlier one never reopens it early). */
function closeGate(gates: RpcGates, url: string, until: number): void {
  const current = gates.get(url) ?? 0;
  if (until > current) gates.set(url, until);
}

/** `opts` with its own gates when it shares none: the gates outlive each request. */
function withGates(opts: RpcBackoffOptions): RpcBackoffOptions & { gates: RpcGates } {
  return opts.gates ? (opts as RpcBackoffOptions & { gates: RpcGates }) : { ...opts, gates: new Map() };
}

async function runWithBackoff<T>(
  url: string,
  opts: RpcBackoffOptions & { gates: RpcGates },
  attempt: (signal: AbortSignal) => Promise<Attempt<T>>,
  outer?: AbortSignal,
): Promise<T> {
  const maxTotalMs = opts.maxTotalMs ?? RPC_MAX_TOTAL_MS;
  const clock = opts.clock ?? systemClock;
  opts.metrics?.rpcInFlight.inc({ network: opts.network });
  try {
    return await attemptsWithin(url, opts, attempt, clock.now() + maxTotalMs, outer);
  } finally {
    opts.metrics?.rpcInFlight.dec({ network: opts.network });
  }
}

async function attemptsWithin<T>(
  url: string,
  opts: RpcBackoffOptions & { gates: RpcGates },
  attempt: (signal: AbortSignal) => Promise<Attempt<T>>,
  deadline: number,
  outer?: AbortSignal,
): Promise<T> {
  const maxAttempts = opts.maxAttempts ?? RPC_MAX_ATTEMPTS;
  const timeoutMs = opts.attemptTimeoutMs ?? RPC_ATTEMPT_TIMEOUT_MS;
  const base = opts.baseDelayMs ?? RPC_BACKOFF_BASE_MS;
  const cap = opts.capDelayMs ?? RPC_BACKOFF_CAP_MS;
  const retryAfterCap = opts.retryAfterCapMs ?? RPC_RETRY_AFTER_CAP_MS;
  const clock = opts.clock ?? systemClock;
  let last: Extract<Attempt<T>, { ok: false }> | null = null;
  for (let n = 0; n < maxAttempts; n++) {
    if (n > 0) {
      const backoff = Math.random() * Math.min(cap, base * 2 ** (n - 1));
      const wait = Math.max(backoff, last?.retryAfterMs ?? 0);
      if (clock.now() + wait >= deadline) break;
      await sleep(wait, outer);
    }
    // Everyone waits at a closed gate, first attempts included; a gate closing past the deadline is an outage now.
    const gate = opts.gates.get(url) ?? 0;
    if (gate > clock.now()) {
      if (gate >= deadline) {
        last ??= { ok: false, reason: "rate_limited", error: null };
        break;
      }
      await sleep(gate - clock.now(), outer);
    }
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`timed out after ${timeoutMs} ms`)),
      Math.min(timeoutMs, Math.max(1, deadline - clock.now())),
    );
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    try {
      const result = await attempt(controller.signal).catch((error: unknown): Attempt<T> => {
        if (outer?.aborted) throw error;
        return { ok: false, reason: controller.signal.aborted ? "timeout" : "transport", error };
      });
      if (result.ok === true) return result.value;
      if (result.ok === "final") throw result.error;
      last = result;
      if (result.reason === "rate_limited") {
        const pause = Math.min(retryAfterCap, result.retryAfterMs ?? 0);
        result.retryAfterMs = pause;
        if (pause > 0) closeGate(opts.gates, url, clock.now() + pause);
      }
      if (n + 1 < maxAttempts) opts.metrics?.rpcRetries.inc({ network: opts.network, reason: result.reason });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    }
  }
  throw new RpcUnavailableError(url, last?.reason ?? "timeout", maxAttempts, { cause: last?.error });
}

/** Retry-After as milliseconds from `now` (epoch ms): delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Only an HTTP date (IMF-fixdate, always in GMT): Date.parse would also take "-1" or "1.5" as years.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function statusFailure(status: number, retryAfter: string | null, error: unknown, now: number): Attempt<never> | null {
  if (status === 429)
    return { ok: false, reason: "rate_limited", retryAfterMs: parseRetryAfter(retryAfter, now) ?? undefined, error };
  // 502 and 504 are a gateway in front of the node saying the same as 503.
  if (status === 503 || status === 502 || status === 504) return { ok: false, reason: "unavailable", error };
  return null;
}

/**
 * A fetch for viem's `http({ fetchFn })` (set its retryCount to 0): the same gate, timeout and backoff. HTTP answers
 * other than 429/502/503/504 are returned as they are; a request that cannot get through throws RpcUnavailableError.
 */
export function createBackoffFetch(
  url: string,
  options: RpcBackoffOptions,
  inner: (input: string, init?: RequestInit) => Promise<Response> = fetch,
): typeof fetch {
  const opts = withGates(options);
  return (input, init) =>
    runWithBackoff(
      url,
      opts,
      async (signal) => {
        const res = await inner(input instanceof Request ? input.url : String(input), { ...init, signal });
        const failure = statusFailure(
          res.status,
          res.headers.get("retry-after"),
          new Error(`HTTP ${res.status}`),
          (opts.clock ?? systemClock).now(),
        );
        if (!failure) return { ok: true, value: res };
        await res.body?.cancel().catch(() => undefined);
        return failure;
      },
      init?.signal ?? undefined,
    );
}

/**
 * Wraps a @solana/kit transport (createDefaultRpcTransport) for createSolanaRpcFromTransport: kit reports an HTTP
 * failure as SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR with the status and headers. Sending the same signed transaction
 * again is safe (same bytes, same signature: it lands at most once).
 */
function withRpcBackoff(url: string, transport: RpcTransport, options: RpcBackoffOptions): RpcTransport {
  const opts = withGates(options);
  return (<TResponse>(config: Parameters<RpcTransport>[0]) =>
    runWithBackoff(
      url,
      opts,
      async (signal): Promise<Attempt<TResponse>> => {
        try {
          return { ok: true, value: await transport<TResponse>({ ...config, signal }) };
        } catch (error) {
          if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
            const failure = statusFailure(
              error.context.statusCode,
              error.context.headers?.get("retry-after") ?? null,
              error,
              (opts.clock ?? systemClock).now(),
            );
            if (failure) return failure;
          }
          // Another HTTP status, or any other error kit raised, is an answer the caller must see; a thrown fetch
          // (refused connection, reset, our timeout) never reached the node and is retried.
          if (isSolanaError(error)) return { ok: "final", error };
          throw error;
        }
      },
      config.signal,
    )) as RpcTransport;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An RPC URL without its path and query, where providers put API keys. */
function redact(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(rpc)";
  }
}

/** A @solana/kit RPC client for `url` whose every request goes through the gate and the backoff. */
export function createBackoffSolanaRpc(url: string, opts: RpcBackoffOptions): Rpc<SolanaRpcApi> {
  return createSolanaRpcFromTransport(
    withRpcBackoff(url, createDefaultRpcTransport({ url }), opts),
  ) as unknown as Rpc<SolanaRpcApi>;
}

/** A viem transport for `url` whose every request goes through the gate and the backoff (viem's own retry is off). */
export function createBackoffHttpTransport(url: string, opts: RpcBackoffOptions): HttpTransport {
  // viem's own timeout must outlast our whole retry budget, or it would cut a request that is waiting at the gate.
  const timeout = (opts.maxTotalMs ?? RPC_MAX_TOTAL_MS) + (opts.attemptTimeoutMs ?? RPC_ATTEMPT_TIMEOUT_MS);
  return http(url, { fetchFn: createBackoffFetch(url, opts), retryCount: 0, timeout });
}
