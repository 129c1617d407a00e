import { describe, expect, it } from "vitest";
import { formatUnitsAsUsdc } from "../verify";
import { budgetDecision, SpendingBudget } from "./spending-budget";

const limits = { perCallUnits: 3n, sessionUnits: 5n };
const format = (u: bigint) => formatUnitsAsUsdc(u);

describe("budgetDecision()", () => {
  it("fits a spend exactly when it is within the per-call cap and what the session has left, over every small case", () => {
    for (let committed = 0n; committed <= 6n; committed++)
      for (let reserved = 0n; reserved <= 6n; reserved++)
        for (let units = 0n; units <= 6n; units++) {
          const decision = budgetDecision(limits, committed, reserved, units, format);
          const expected =
            units > limits.perCallUnits
              ? "over_per_call"
              : units > limits.sessionUnits - committed - reserved
                ? "over_session"
                : null;
          expect(decision.ok ? null : decision.reason).toBe(expected);
        }
  });

  it("says the amounts in USDC, and never a negative amount left", () => {
    const over = budgetDecision(limits, 6n, 0n, 1n, format);
    expect(over).toEqual({
      ok: false,
      reason: "over_session",
      message: "this call would spend 0.000001 USDC; 0 USDC of the session's budget of 0.000005 USDC is left",
    });
  });
});

describe("SpendingBudget", () => {
  it("holds reservations against the session until each is committed at its charge or released", () => {
    const budget = new SpendingBudget(limits, format);
    const a = budget.reserve(3n);
    const b = budget.reserve(2n);
    if (!a.ok || !b.ok) throw new Error("both fit");
    expect(budget.reserve(1n)).toMatchObject({ ok: false, reason: "over_session" });
    a.reservation.commit(1n);
    b.reservation.release();
    expect(budget.state()).toEqual({ spentUnits: 1n, leftUnits: 4n });
    // A second commit or release of the same reservation changes nothing.
    a.reservation.commit(3n);
    b.reservation.commit(2n);
    expect(budget.state()).toEqual({ spentUnits: 1n, leftUnits: 4n });
    expect(budget.reserve(4n)).toMatchObject({ ok: false, reason: "over_per_call" });
  });
});
