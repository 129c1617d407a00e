import { describe, expect, it } from "vitest";
import { loopsInTurn, SLICE_MS } from "./loops-in-turn";

/** Burns `ms` of this process's CPU, however long a loaded machine makes that take. */
const burnCpu = (ms: number) => () => {
  const from = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(from);
    if (used.user + used.system >= ms * 1000) return;
  }
};

describe("loopsInTurn()", () => {
  it("measures each loop's own rate: a 1 ms loop runs about twice as often as a 2 ms one", async () => {
    // Measured over many turns, each loop burning CPU rather than wall time, so the machine's other load falls on both.
    const rates = await loopsInTurn(1_500, { fast: burnCpu(1), slow: burnCpu(2) });
    expect(rates.fast / rates.slow).toBeGreaterThan(1.6);
    expect(rates.fast / rates.slow).toBeLessThan(2.4);
  });

  it("runs the loops in turns, not one after the other", async () => {
    const order: string[] = [];
    // Ten slices each, and loops that wait rather than spin: a slice stretched by a loaded machine (its process off the
    // CPU for a few hundred ms) must not use up a loop's whole time in its first turn.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    await loopsInTurn(10 * SLICE_MS, {
      a: () => {
        if (order.at(-1) !== "a") order.push("a");
        return pause();
      },
      b: () => {
        if (order.at(-1) !== "b") order.push("b");
        return pause();
      },
    });
    expect(order.slice(0, 4)).toEqual(["a", "b", "a", "b"]);
  });

  it("stops the run on a loop that throws", async () => {
    await expect(loopsInTurn(100, { ok: () => undefined, bad: () => Promise.reject(new Error("a receipt check failed")) })).rejects.toThrow("a receipt check failed");
  });
});
