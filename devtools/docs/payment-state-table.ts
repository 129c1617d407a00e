// docs/architecture.md's payment state table, from server/ledger/payment-states.ts: each state with what it means,
// and each move of the table with what makes it; then, from payment-transition.ts, what each event does from each
// state, and what each effect is.
import "server-only";
import { PAYMENT_MOVES, PAYMENT_STATES, PAYMENT_TRANSITIONS, STATE_MEANINGS, transitionPairs, type PaymentStatus } from "../../server/ledger/payment-states";
import { EFFECT_MEANINGS, EFFECTS, EVENT_MEANINGS, PAYMENT_EVENTS, transition, type PaymentEvent } from "../../server/ledger/payment-transition";
import { cell } from "./generated-block";

/** The states and the moves between them, then the events and the effects, as four Markdown tables. */
export function paymentStateTables(): string {
  const reason = (from: PaymentStatus, to: PaymentStatus): string => (PAYMENT_MOVES[from] as Partial<Record<PaymentStatus, string>>)[to] ?? "";
  const states = ["| state | what it means | moves to |", "|---|---|---|", ...PAYMENT_STATES.map((s) => `| \`${s}\` | ${cell(STATE_MEANINGS[s])} | ${PAYMENT_TRANSITIONS[s].map((t) => `\`${t}\``).join(", ") || "none: final"} |`)];
  const pairs = ["| from | to | what makes the move |", "|---|---|---|", ...transitionPairs().map(([from, to]) => `| \`${from}\` | \`${to}\` | ${cell(reason(from, to))} |`)];
  const events = ["| event | what it is | from → to: effects (every other state refuses it) |", "|---|---|---|", ...PAYMENT_EVENTS.map(eventRow)];
  const effects = ["| effect | what the caller does |", "|---|---|", ...EFFECTS.map((e) => `| \`${e}\` | ${cell(EFFECT_MEANINGS[e])} |`)];
  return [...states, "", ...pairs, "", ...events, "", ...effects].join("\n");
}

/** An event's row: its name and payload, what it is, and what it does from each state that does not refuse it. */
function eventRow(event: PaymentEvent): string {
  const payload = Object.entries(event).filter(([key]) => key !== "type").map(([key, value]) => `${key}: ${String(value)}`);
  const name = `\`${event.type}\`${payload.length > 0 ? ` (${payload.join(", ")})` : ""}`;
  const does = PAYMENT_STATES.flatMap((state) => {
    const decided = transition(state, event);
    if (!decided.ok) return [];
    const to = decided.move ? `→ \`${decided.move.to}\`` : "stays";
    return [`\`${state}\` ${to}: ${decided.effects.join(", ")}`];
  });
  return `| ${name} | ${cell(EVENT_MEANINGS[event.type])} | ${does.join("; ")} |`;
}
