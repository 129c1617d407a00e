import { describe, expect, it } from "vitest";
import { PAYMENT_STATES, transitionPairs } from "../../server/payments/payment-states";
import { paymentStateTables } from "./payment-state-table";

describe("paymentStateTables()", () => {
  const text = paymentStateTables();

  it("lists every state with its meaning, and every allowed move with what makes it", () => {
    for (const state of PAYMENT_STATES) expect(text).toMatch(new RegExp(`\\| \`${state}\` \\| [^|\\s][^|]* \\|`));
    for (const [from, to] of transitionPairs()) expect(text).toMatch(new RegExp(`\\| \`${from}\` \\| \`${to}\` \\| [^|\\s][^|]* \\|`));
  });

  it("lists no move the table does not allow", () => {
    const rows = text.split("\n").filter((l) => /^\| `\w+` \| `\w+` \|/.test(l));
    expect(rows).toHaveLength(transitionPairs().length);
  });
});
