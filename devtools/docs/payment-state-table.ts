// docs/architecture.md's payment state table, from server/payments/payment-states.ts: each state with what it means,
// and each move of the table with what makes it.
import "server-only";
import { PAYMENT_MOVES, PAYMENT_STATES, PAYMENT_TRANSITIONS, STATE_MEANINGS, transitionPairs, type PaymentStatus } from "../../server/payments/payment-states";
import { cell } from "./generated-block";

/** The states and the moves between them, as two Markdown tables. */
export function paymentStateTables(): string {
  const reason = (from: PaymentStatus, to: PaymentStatus): string => (PAYMENT_MOVES[from] as Partial<Record<PaymentStatus, string>>)[to] ?? "";
  const states = ["| state | what it means | moves to |", "|---|---|---|", ...PAYMENT_STATES.map((s) => `| \`${s}\` | ${cell(STATE_MEANINGS[s])} | ${PAYMENT_TRANSITIONS[s].map((t) => `\`${t}\``).join(", ") || "none: final"} |`)];
  const pairs = ["| from | to | what makes the move |", "|---|---|---|", ...transitionPairs().map(([from, to]) => `| \`${from}\` | \`${to}\` | ${cell(reason(from, to))} |`)];
  return [...states, "", ...pairs].join("\n");
}
