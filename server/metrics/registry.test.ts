import { describe, expect, it } from "vitest";
import { createMetrics, onStep, timeStep, type Step } from "./registry";
import { systemClock } from "../clock";

const m = createMetrics(systemClock);

describe("onStep()", () => {
  it("tells a listener of each step observation, in the caller's async context, until it unsubscribes", async () => {
    const seen: [Step, string][] = [];
    const off = onStep(m, (step, network) => seen.push([step, network]));
    await timeStep(m, ["upstream_first_byte", "upstream"], "solana:test", async () => "answer");
    off();
    await timeStep(m, "verify", "solana:test", async () => "ignored");
    expect(seen).toEqual([
      ["upstream_first_byte", "solana:test"],
      ["upstream", "solana:test"],
    ]);
  });

  it("observes the histogram and tells listeners when the step throws", async () => {
    const seconds: number[] = [];
    const off = onStep(m, (step, _network, s) => {
      if (step === "settle") seconds.push(s);
    });
    const count = async () =>
      (await m.stepSeconds.get()).values.find(
        (v) =>
          v.metricName === "signet_step_duration_seconds_count" &&
          v.labels.step === "settle" &&
          v.labels.network === "solana:throws",
      )?.value ?? 0;
    const before = await count();
    await expect(timeStep(m, "settle", "solana:throws", () => Promise.reject(new Error("chain down")))).rejects.toThrow(
      "chain down",
    );
    off();
    expect(seconds).toHaveLength(1);
    expect(seconds[0]).toBeGreaterThanOrEqual(0);
    expect((await count()) - before).toBe(1);
  });
});
