import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PAYMENT_STATES, statesBefore, transitionPairs } from "./payment-states";

/** The `//   from → to: why` lines of the module's header comment. */
function documentedMoves(): string[] {
  const source = readFileSync(path.join(import.meta.dirname, "payment-states.ts"), "utf8");
  return [...source.matchAll(/^\/\/ {3}(\w+) → (\w+): \S/gm)].map((m) => `${m[1]}→${m[2]}`);
}

describe("payment states", () => {
  it("documents exactly the table's moves, each once", () => {
    const documented = documentedMoves();
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented.sort()).toEqual(transitionPairs().map(([from, to]) => `${from}→${to}`).sort());
  });

  it("reaches every state from a claim, and ends only in expired", () => {
    const reached = new Set<string>(["claimed"]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [from, to] of transitionPairs()) if (reached.has(from) && !reached.has(to)) grew = reached.add(to).size > 0;
    }
    expect([...reached].sort()).toEqual([...PAYMENT_STATES].sort());
    expect(statesBefore("served").sort()).toEqual(["claimed", "pending", "serving", "settled", "unserved"]);
  });
});
