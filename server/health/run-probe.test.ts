// A probe's time limit: a part slower than the limit reads as down ("timeout"), one that answers within it as up, and
// one that throws as unreachable; the limit is the operator's HEALTH_PROBE_TIMEOUT_MS once the config is read.
import { afterEach, describe, expect, it, vi } from "vitest";
import { manualClock } from "../test/support/manual-clock";
import { loadConfig, type Config } from "../env";
import { testEnv } from "../test/support/env";
import { runtimeHealthDeps } from "./check-health";
import { runProbe } from "./run-probe";

afterEach(() => {
  vi.useRealTimers();
});

describe("runProbe()", () => {
  it("reads a probe that outlasts its limit as a timeout, whatever it answers later", async () => {
    vi.useFakeTimers();
    const clock = manualClock();
    let answer: (value: number) => void = () => undefined;
    const result = runProbe(() => new Promise<number>((resolve) => (answer = resolve)), 2_000, clock);
    clock.advance(1_999);
    await vi.advanceTimersByTimeAsync(1_999);
    answer(7);
    expect(await result).toEqual({ ok: true, latencyMs: 1_999, value: 7 });

    const late = runProbe(() => new Promise<number>(() => undefined), 2_000, clock);
    clock.advance(2_000);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await late).toEqual({ ok: false, latencyMs: 2_000, error: "timeout" });
  });

  it("reads a probe that throws as unreachable, without its message", async () => {
    const result = await runProbe(
      () => Promise.reject(new Error("https://rpc.example/?api-key=secret")),
      2_000,
      manualClock(),
    );
    expect(result).toEqual({ ok: false, latencyMs: 0, error: "unreachable" });
  });
});

describe("runtimeHealthDeps()", () => {
  it("bounds every probe by HEALTH_PROBE_TIMEOUT_MS (2 s unless set)", () => {
    const runtime = (config: Config) =>
      runtimeHealthDeps({
        config,
        db: {} as never,
        chains: { facilitator: {} as never },
        keys: {
          log: () => {
            throw new Error("not read");
          },
        },
        clock: manualClock(),
      });
    expect(runtime(loadConfig(testEnv())).timeoutMs).toBe(2_000);
    expect(runtime(loadConfig(testEnv({ HEALTH_PROBE_TIMEOUT_MS: "30000" }))).timeoutMs).toBe(30_000);
    expect(() => loadConfig(testEnv({ HEALTH_PROBE_TIMEOUT_MS: "0" }))).toThrow(/HEALTH_PROBE_TIMEOUT_MS/);
  });
});
