// One health probe, bounded in time: its result or a fixed failure kind, with how long it took.
import "server-only";
import type { Clock } from "../clock";

/** What a failed probe reports. SECURITY: never the error's message: an RPC or provider URL may carry an API key. */
export type ProbeFailure = "timeout" | "unreachable";

export type ProbeResult<T> =
  { ok: true; latencyMs: number; value: T } | { ok: false; latencyMs: number; error: ProbeFailure };

/**
 * Runs `probe` with a time limit; a probe that throws or outlasts `timeoutMs` is a failure, never an exception. Its
 * latency is measured by `clock`.
 */
export async function runProbe<T>(probe: () => Promise<T>, timeoutMs: number, clock: Clock): Promise<ProbeResult<T>> {
  const started = clock.monotonic();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const result = await Promise.race([probe().then((value) => ({ value })), timeout]);
    const latencyMs = Math.round(clock.monotonic() - started);
    return result === "timeout"
      ? { ok: false, latencyMs, error: "timeout" }
      : { ok: true, latencyMs, value: result.value };
  } catch {
    return { ok: false, latencyMs: Math.round(clock.monotonic() - started), error: "unreachable" };
  } finally {
    clearTimeout(timer);
  }
}
