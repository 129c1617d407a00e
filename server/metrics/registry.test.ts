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

describe("the gauges of where calls wait", () => {
  const value = async (
    gauge: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> },
    labels: Record<string, string> = {},
  ) => (await gauge.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;

  it("counts a step in progress while it runs, under its last name, whether it resolves or throws", async () => {
    const fresh = createMetrics(systemClock);
    let release!: () => void;
    const running = timeStep(
      fresh,
      ["upstream_first_byte", "upstream"],
      "solana:test",
      () => new Promise<void>((r) => (release = r)),
    );
    const failing = timeStep(fresh, "settle", "solana:test", () => Promise.reject(new Error("chain down")));
    expect(await value(fresh.stepsInProgress, { step: "upstream" })).toBe(1);
    expect(await value(fresh.stepsInProgress, { step: "upstream_first_byte" })).toBe(0);
    await expect(failing).rejects.toThrow("chain down");
    expect(await value(fresh.stepsInProgress, { step: "settle" })).toBe(0);
    release();
    await running;
    expect(await value(fresh.stepsInProgress, { step: "upstream" })).toBe(0);
  });

  it("reads the database pool at scrape time, and shows nothing while no pool is set (PGlite)", async () => {
    const fresh = createMetrics(systemClock);
    expect((await fresh.dbPool.get()).values).toEqual([]);
    fresh.poolStats.read = () => ({ total: 10, idle: 2, waiting: 7 });
    expect(await value(fresh.dbPool, { state: "total" })).toBe(10);
    expect(await value(fresh.dbPool, { state: "idle" })).toBe(2);
    expect(await value(fresh.dbPool, { state: "waiting" })).toBe(7);
    expect(await fresh.registry.metrics()).toContain('signet_db_pool_connections{state="waiting"} 7');
  });
});
