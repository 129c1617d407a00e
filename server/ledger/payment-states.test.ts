import { describe, expect, it } from "vitest";
import { PAYMENT_MOVES, PAYMENT_STATES, STATE_MEANINGS, statesBefore, transitionPairs } from "./payment-states";

describe("payment states", () => {
  it("says what every state means and what makes every move", () => {
    for (const state of PAYMENT_STATES) expect(STATE_MEANINGS[state].length, state).toBeGreaterThan(20);
    for (const [from, to] of transitionPairs())
      expect((PAYMENT_MOVES[from] as Record<string, string>)[to]!.length, `${from} → ${to}`).toBeGreaterThan(10);
  });

  it("reaches every state from a claim, and ends only in served, refunded or expired", () => {
    const reached = new Set<string>(["claimed"]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [from, to] of transitionPairs())
        if (reached.has(from) && !reached.has(to)) grew = reached.add(to).size > 0;
    }
    expect([...reached].sort()).toEqual([...PAYMENT_STATES].sort());
    expect(
      PAYMENT_STATES.filter((s) => statesBefore(s).length > 0 && transitionPairs().every(([from]) => from !== s)),
    ).toEqual(["served", "refunded", "expired"]);
    expect(statesBefore("served").sort()).toEqual(["claimed", "pending", "serving", "settled"]);
  });

  it("never moves a served or refunded payment again: its answer and its money are final", () => {
    expect(transitionPairs().filter(([from]) => from === "served" || from === "refunded")).toEqual([]);
  });
});
