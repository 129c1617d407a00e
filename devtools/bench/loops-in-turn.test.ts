import { describe, expect, it } from "vitest";
import { loopsInTurn, SLICE_MS } from "./loops-in-turn";

/** A clock that moves only when a loop says it spent time, so each loop's cost is exactly what it declares. */
function manualClock() {
  let ms = 0;
  return { now: () => ms, spend: (by: number) => () => void (ms += by) };
}

describe("loopsInTurn()", () => {
  it("measures each loop's own rate over its own running time: a 1 ms loop runs twice as often as a 2 ms one", async () => {
    const clock = manualClock();
    const rates = await loopsInTurn(1_500, { fast: clock.spend(1), slow: clock.spend(2) }, clock.now);
    expect(rates).toEqual({ fast: 1_000, slow: 500 });
  });

  it("runs each loop for its whole time even when a slice overruns, and no longer than one call past it", async () => {
    const clock = manualClock();
    let calls = 0;
    // Each call takes 70 ms: the first 100 ms slice runs two (140 ms), the second two more (280 ms), and the last
    // slice, 20 ms of the 300 left, one (350 ms): five calls over the 350 ms they took.
    const rates = await loopsInTurn(300, { slow: () => (calls++, clock.spend(70)()) }, clock.now);
    expect(calls).toBe(5);
    expect(rates.slow).toBeCloseTo(5 / 0.35, 9);
  });

  it("runs the loops in turns of one slice each, not one after the other", async () => {
    const clock = manualClock();
    const order: string[] = [];
    const loop = (name: string) => () => {
      if (order.at(-1) !== name) order.push(name);
      clock.spend(5)();
    };
    await loopsInTurn(3 * SLICE_MS, { a: loop("a"), b: loop("b") }, clock.now);
    expect(order).toEqual(["a", "b", "a", "b", "a", "b"]);
  });

  it("stops the run on a loop that throws", async () => {
    await expect(
      loopsInTurn(100, { ok: () => undefined, bad: () => Promise.reject(new Error("a receipt check failed")) }),
    ).rejects.toThrow("a receipt check failed");
  });
});
