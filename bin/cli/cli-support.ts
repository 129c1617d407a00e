// Shared CLI plumbing: usage errors exit 2 with a one-line reason on stderr; results go to stdout. Loaded on every start
// (help included): it imports nothing but Node's own modules.
import { readFileSync } from "node:fs";
import type { Config } from "../../server/env";
import { serviceError } from "../../server/errors/error-body";

export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * The service's config as this machine's environment states it, for the commands that act on the service's own data
 * (its data dir, database and local chains). Loaded only by those commands.
 */
export async function cliConfig(): Promise<Config> {
  const { loadConfig, processEnv } = await import("../../server/env");
  return loadConfig(processEnv());
}

/** Reads a file as UTF-8, as a usage error when it cannot be read. */
export function readTextFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read ${what} file ${file}`);
  }
}

/** JSON if the text parses as JSON, else the raw text (hashed byte for byte). */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The one-line usage error for a service's refusal: its status, stable code and message. */
export function serviceRefusal(status: number, body: unknown): UsageError {
  const { code, message } = serviceError(body);
  return new UsageError(`the service answered ${status}: ${code} ${message}`.trim());
}

/**
 * The service the CLI talks to when no --endpoint is given: SIGNET_ENDPOINT, else SERVICE_BASE_URL (the origin the
 * running service calls its own), else http://localhost:$PORT (PORT as the service reads it, 3000 by default). The one
 * place the CLI reads these variables.
 */
export function defaultEndpoint(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const set = (name: "SIGNET_ENDPOINT" | "SERVICE_BASE_URL") => {
    const value = env[name]?.trim();
    return value ? { name, value } : null;
  };
  const chosen = set("SIGNET_ENDPOINT") ?? set("SERVICE_BASE_URL");
  if (chosen) return checkedEndpoint(chosen.value, chosen.name);
  const port = env.PORT?.trim() || "3000";
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65_535)
    throw new UsageError(`PORT is not a port number: ${port}`);
  return `http://localhost:${Number(port)}`;
}

/** The service's origin for a command: its --endpoint, else defaultEndpoint(); without trailing slashes. */
export function resolveEndpoint(flag: string | undefined): string {
  return flag === undefined ? defaultEndpoint() : checkedEndpoint(flag, "--endpoint");
}

function checkedEndpoint(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source} is not a URL: ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${source} must be an http(s) URL, got ${value}`);
  return value.replace(/\/+$/, "");
}

/** Why a fetch got no answer, in a few words: "connection refused", "timed out after 10 s", "host not found"… */
export function fetchFailureReason(err: unknown, timeoutMs?: number): string {
  const codes: string[] = [];
  let name = "";
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, name: n } = e as { code?: unknown; name?: unknown };
    if (typeof code === "string") codes.push(code);
    if (!name && (n === "TimeoutError" || n === "AbortError")) name = n;
    for (const inner of (e as { errors?: unknown }).errors instanceof Array
      ? (e as { errors: unknown[] }).errors
      : []) {
      const c = (inner as { code?: unknown } | null)?.code;
      if (typeof c === "string") codes.push(c);
    }
  }
  const has = (...c: string[]) => codes.some((code) => c.includes(code));
  if (
    name ||
    has("ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ABORT_ERR")
  ) {
    return timeoutMs ? `timed out after ${timeoutMs / 1000} s` : "timed out";
  }
  if (has("ECONNREFUSED")) return "connection refused";
  if (has("ENOTFOUND", "EAI_AGAIN")) return "host not found";
  if (has("ECONNRESET", "UND_ERR_SOCKET", "EPIPE")) return "connection reset";
  if (has("EHOSTUNREACH", "ENETUNREACH")) return "host unreachable";
  if (codes[0]) return codes[0];
  return err instanceof Error && err.message ? err.message : "no answer";
}

/** The one line for a service that did not answer at all (down, wrong port, or too slow), naming its URL. */
export function serviceDidNotAnswer(endpoint: string, err: unknown, timeoutMs?: number): UsageError {
  const host = URL.canParse(endpoint) ? new URL(endpoint).hostname : "";
  const local = host === "localhost" || host === "[::1]" || /^127\./.test(host);
  const hint = local ? "is `npm run dev` running?" : "is the URL right and the service up?";
  return new UsageError(`the service at ${endpoint} did not answer (${fetchFailureReason(err, timeoutMs)}): ${hint}`);
}

/**
 * `fetch` for calls to the service at `endpoint`: a call that gets no answer throws serviceDidNotAnswer's UsageError
 * (a refusal is still a Response). With `timeoutMs`, each call gives up after that long.
 */
export function serviceFetch(endpoint: string, timeoutMs?: number): typeof fetch {
  return async (input, init) => {
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signal =
      timeout && init?.signal ? AbortSignal.any([init.signal, timeout]) : (timeout ?? init?.signal ?? null);
    try {
      return await fetch(input, { ...init, signal });
    } catch (err) {
      throw serviceDidNotAnswer(endpoint, err, timeoutMs);
    }
  };
}

/**
 * A fetch for a library that turns every failed call into its own error (the verifier): calls under `endpoint` that
 * get no answer are remembered in `failure`, so the caller can name the service instead of the library's message.
 */
export function watchedServiceFetch(endpoint: string): {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  failure: () => UsageError | null;
} {
  let failure: UsageError | null = null;
  return {
    fetch: async (input, init) => {
      try {
        return await fetch(input, init);
      } catch (err) {
        if (input.startsWith(`${endpoint}/`) || input === endpoint) failure ??= serviceDidNotAnswer(endpoint, err);
        throw err;
      }
    },
    failure: () => failure,
  };
}

/**
 * A receipt-log fetch failure (server/transparency's LogFetchError message) as the CLI's one line: a call to the service
 * that got no answer names the service; any other failure says what it got.
 */
export async function logFetchFailure(message: string, endpoint: string): Promise<UsageError> {
  const unanswered = /^cannot reach (\S+): (.*)$/.exec(message);
  if (!unanswered || !unanswered[1]!.startsWith(`${endpoint}/`)) return new UsageError(message);
  if (/timeout|abort/i.test(unanswered[2]!))
    return serviceDidNotAnswer(endpoint, Object.assign(new Error(unanswered[2]), { name: "TimeoutError" }));
  // The log client keeps only the message: one more call to the service tells why it did not answer.
  try {
    await fetch(endpoint, { method: "HEAD", signal: AbortSignal.timeout(3_000) });
    return new UsageError(message);
  } catch (err) {
    return serviceDidNotAnswer(endpoint, err);
  }
}

/** The closest of `candidates` to a mistyped `word` (a transposition or slip, or a prefix), or null when none is close. */
export function closestMatch(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  const core = word.replace(/^-+/, "");
  const allowed = core.length <= 3 ? 1 : core.length <= 6 ? 2 : 3;
  for (const candidate of candidates) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  if (best !== null && bestDistance <= allowed) return best;
  const prefixed = core.length >= 3 ? candidates.filter((c) => c.replace(/^-+/, "").startsWith(core)) : [];
  return prefixed.length === 1 ? prefixed[0]! : null;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours each cost 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
