import { describe, expect, it } from "vitest";
import { PAYMENT_STATES, STATE_MEANINGS, transitionPairs } from "../../server/ledger/payment-states";
import { EFFECTS, EVENT_MEANINGS } from "../../server/ledger/payment-transition";
import { cell } from "./generated-block";
import { paymentStateTables } from "./payment-state-table";

describe("paymentStateTables()", () => {
  const text = paymentStateTables();

  it("lists every state with its meaning, and every allowed move with what makes it", () => {
    for (const state of PAYMENT_STATES) expect(text).toMatch(new RegExp(`\\| \`${state}\` \\| [^|\\s][^|]* \\|`));
    // Each state with its own meaning, the one its entry in STATE_MEANINGS gives.
    for (const state of PAYMENT_STATES) expect(text).toContain(`| \`${state}\` | ${cell(STATE_MEANINGS[state])} |`);
    for (const [from, to] of transitionPairs()) expect(text).toMatch(new RegExp(`\\| \`${from}\` \\| \`${to}\` \\| [^|\\s][^|]* \\|`));
  });

  it("lists every event with what it is and does, and every effect with what it is", () => {
    for (const event of Object.keys(EVENT_MEANINGS)) expect(text).toMatch(new RegExp(`\\| \`${event}\`[^|]* \\| [^|\\s][^|]* \\| [^|\\s][^|]* \\|`));
    for (const effect of EFFECTS) expect(text).toMatch(new RegExp(`\\| \`${effect}\` \\| [^|\\s][^|]* \\|`));
  });

  it("lists no move the table does not allow", () => {
    const rows = text.split("\n").filter((l) => /^\| `\w+` \| `\w+` \|/.test(l));
    expect(rows).toHaveLength(transitionPairs().length);
  });
});
