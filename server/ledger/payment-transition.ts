// What happens to a payment: `transition(state, event)` is the one decision of every move of `payments.status`. For
// each state of payment-states.ts and each event that can reach a payment, it gives the move (or none: the state
// stays) and the effects the caller carries out with it, or refuses. Pure and total: no input is left undecided, and
// the stores and ledger statements write only a `Move` this module made.
import "server-only";
import {
  PAYMENT_MOVES,
  PAYMENT_STATES,
  PAYMENT_TRANSITIONS,
  type PaymentPurpose,
  type PaymentStatus,
} from "./payment-states";

/** Everything that can happen to a payment, as the code that sees it names it. */
export type PaymentEvent =
  | { type: "claim" }
  | { type: "settled"; purpose: PaymentPurpose }
  | { type: "pending" }
  | { type: "landed-late"; purpose: PaymentPurpose; waiting: boolean }
  | { type: "failed" }
  | { type: "expired" }
  | { type: "served" }
  | { type: "upstream-failed" }
  | { type: "not-served" }
  | { type: "not-recorded" }
  | { type: "database-lost" }
  | { type: "lease-taken-over" }
  | { type: "retried" }
  | { type: "replayed" }
  | { type: "purged" };
export type PaymentEventType = PaymentEvent["type"];

/** Every event, with each payload that changes what it does: the rows of the table. */
export const PAYMENT_EVENTS: readonly PaymentEvent[] = [
  { type: "claim" },
  { type: "settled", purpose: "call" },
  { type: "settled", purpose: "topup" },
  { type: "pending" },
  { type: "landed-late", purpose: "call", waiting: true },
  { type: "landed-late", purpose: "call", waiting: false },
  { type: "landed-late", purpose: "topup", waiting: true },
  { type: "failed" },
  { type: "expired" },
  { type: "served" },
  { type: "upstream-failed" },
  { type: "not-served" },
  { type: "not-recorded" },
  { type: "database-lost" },
  { type: "lease-taken-over" },
  { type: "retried" },
  { type: "replayed" },
  { type: "purged" },
];

/** What each event is: who sees it, and when. */
export const EVENT_MEANINGS: Record<PaymentEventType, string> = {
  claim: "a request claims the payment's idempotency key before anything moves money (again, after it failed)",
  settled: "the claim's transfer landed, seen by the attempt that holds the claim (or by the takeover recovering it)",
  pending: "the claim's transfer was sent and its confirmation not seen within the settle wait",
  "landed-late": "a pending transfer is found landed: by the retry of the request that paid (waiting) or the sweeper",
  failed: "the transfer was refused before it moved, belongs to another payment, or failed on chain",
  expired: "the transfer was sent and can never land (its blockhash or validBefore passed unseen)",
  served: "the call's answer was captured with its receipt, in the capture's statement",
  "upstream-failed": "the call's upstream failed before it answered",
  "not-served": "the call was refused before its upstream: its hold, paid at an older price, cannot pay for it now",
  "not-recorded": "the database refused the call's record for good",
  "database-lost": "the request holding the payment stopped on a lost database before its upstream answered",
  "lease-taken-over": "a retry finds the lease of the request holding the payment ran out (its server died)",
  retried: "the request that paid is sent again while its payment waits (pending, or unserved)",
  replayed: "the request that paid is sent again after its call was served",
  purged: "a served payment's kept answer passed its retention",
};

/** What the caller does beside the move: each is one step of the code that makes it. */
export const EFFECTS = [
  "send-transfer",
  "keep-payload",
  "drop-payload",
  "credit-payer",
  "place-hold",
  "serve-from-hold",
  "keep-hold",
  "capture-hold",
  "refund-hold",
  "keep-answer",
  "answer-again",
  "drop-answer",
  "free-payment-id",
  "take-lease",
  "end-lease",
  "ask-chain",
] as const;
export type Effect = (typeof EFFECTS)[number];

/** What each effect is. */
export const EFFECT_MEANINGS: Record<Effect, string> = {
  "send-transfer": "the facilitator sends the payment's transfer, in the payer's settlement lane",
  "keep-payload": "the row keeps the signed payload, its expiry and its beneficiary, so any instance can finish it",
  "drop-payload": "the pending payload and its expiry are dropped from the row",
  "credit-payer": "the payment's price is credited to its beneficiary's ledger, once (the credit hangs off this move)",
  "place-hold": "the whole credit is reserved as the call's hold, which only the request that paid may spend",
  "serve-from-hold": "this request serves the call now, from the hold",
  "keep-hold": "the hold stays reserved for the one retry of the request that paid",
  "capture-hold": "the hold is captured: the cost charged, the rest returned, the point counted, the receipt stored",
  "refund-hold": "the hold is returned whole to the payer's spendable credit; no receipt",
  "keep-answer": "the answer is kept on the payment for the payer's repeat of the request",
  "answer-again": "the kept answer (and its receipt) is the answer again; nothing moves",
  "drop-answer": "the kept answer is dropped",
  "free-payment-id": "the client's payment id is free again for the payer's next payment",
  "take-lease": "a new attempt holds the payment, under a fresh lease: the attempt before it can write nothing more",
  "end-lease": "the lease ends at once, so the retry of the request that paid takes the payment over",
  "ask-chain": "the chain is asked what moved before anything else is decided",
};

/** Why an event moves nothing. */
type Refusal =
  /** The state is final: its money and its answer never move again. */
  | "final"
  /** A live attempt holds the payment: only its lease running out (a takeover) frees it. */
  | "held"
  /** The event does not happen to a payment in this state (the statement that writes it matches no row). */
  | "not-its-state";

declare const madeByTransition: unique symbol;

/**
 * A move of the state table, as transition() made it: the only value a payment store or ledger statement writes. The
 * brand cannot be spelled outside this module, so a hand-written `{ from, to }` is refused by the type checker.
 */
export type Move<From extends PaymentStatus = PaymentStatus> = {
  [F in From]: { readonly from: F; readonly to: keyof (typeof PAYMENT_MOVES)[F] & PaymentStatus };
}[From] & { readonly [madeByTransition]: true };

/** The moves a ledger credit makes: a claim, or a late-confirmed broadcast, whose transfer landed. */
export type CreditMove = Move<"claimed" | "pending">;

/** transition()'s answer: the move (null: the state stays) and its effects, or why nothing happens. */
export type Decision = { ok: true; move: Move | null; effects: readonly Effect[] } | { ok: false; reason: Refusal };

/** One table cell: where the state goes (null: it stays) and what the caller does. */
type Cell = { to: PaymentStatus | null; effects: readonly Effect[] };
const go = (to: PaymentStatus | null, ...effects: Effect[]): Cell => ({ to, effects });

/** The cells of one event, by the state it happens to; a state without a cell refuses it. */
function cellsOf(event: PaymentEvent): Partial<Record<PaymentStatus, Cell>> {
  switch (event.type) {
    case "claim":
      return { failed: go("claimed", "take-lease", "send-transfer") };
    case "settled":
      return event.purpose === "call"
        ? { claimed: go("settled", "credit-payer", "place-hold", "serve-from-hold") }
        : { claimed: go("served", "credit-payer", "keep-answer") };
    case "pending":
      return { claimed: go("pending", "keep-payload") };
    case "landed-late":
      if (event.purpose === "topup") return { pending: go("served", "credit-payer", "drop-payload", "keep-answer") };
      return event.waiting
        ? { pending: go("settled", "credit-payer", "place-hold", "drop-payload", "take-lease", "serve-from-hold") }
        : { pending: go("unserved", "credit-payer", "place-hold", "drop-payload", "keep-hold") };
    case "failed":
      return { claimed: go("failed", "free-payment-id"), pending: go("failed", "free-payment-id", "drop-payload") };
    case "expired":
      return { claimed: go("expired", "free-payment-id"), pending: go("expired", "free-payment-id", "drop-payload") };
    case "served":
      return {
        settled: go("served", "capture-hold", "keep-answer"),
        serving: go("served", "capture-hold", "keep-answer"),
      };
    case "upstream-failed":
    case "not-served":
      return { settled: go("unserved", "keep-hold"), serving: go("unserved", "keep-hold") };
    case "not-recorded":
      return { settled: go("refunded", "refund-hold"), serving: go("refunded", "refund-hold") };
    case "database-lost":
      return {
        claimed: go("claimed", "end-lease"),
        settled: go("unserved", "keep-hold"),
        serving: go("unserved", "keep-hold"),
      };
    case "lease-taken-over":
      return {
        claimed: go("claimed", "take-lease", "ask-chain"),
        settled: go("serving", "take-lease", "serve-from-hold"),
        serving: go("serving", "take-lease", "serve-from-hold"),
      };
    case "retried":
      return { pending: go(null, "ask-chain"), unserved: go("serving", "take-lease", "serve-from-hold") };
    case "replayed":
      return { served: go(null, "answer-again") };
    case "purged":
      return { served: go(null, "drop-answer") };
  }
}

/** The states no move leaves: a payment there is done. */
export const FINAL_STATES: readonly PaymentStatus[] = PAYMENT_STATES.filter((s) => PAYMENT_TRANSITIONS[s].length === 0);
/** The states a live attempt holds under a lease. */
const HELD_STATES: readonly PaymentStatus[] = ["claimed", "settled", "serving"];
/** The events that need the payment free of a live holder. */
const NEEDS_FREE: readonly PaymentEventType[] = ["claim", "retried"];

/** What `event` does to a payment in `state`: its move and effects, or why it does nothing. */
export function transition(state: PaymentStatus, event: PaymentEvent): Decision {
  const cell = cellsOf(event)[state];
  if (cell) return { ok: true, move: cell.to === null ? null : made(state, cell.to), effects: cell.effects };
  if (FINAL_STATES.includes(state)) return { ok: false, reason: "final" };
  if (HELD_STATES.includes(state) && NEEDS_FREE.includes(event.type)) return { ok: false, reason: "held" };
  return { ok: false, reason: "not-its-state" };
}

/** The move `event` makes from `state`; throws when the table refuses it or leaves the state where it is. */
export function moveOf<S extends PaymentStatus>(state: S, event: PaymentEvent): Move<S> {
  const decided = transition(state, event);
  if (!decided.ok || decided.move === null) {
    throw new Error(`a ${state} payment makes no move on ${event.type} (${decided.ok ? "it stays" : decided.reason})`);
  }
  return decided.move as Move<S>;
}

/** Every move `event` makes, one per state it moves from (only from `among`, when given), in table order. */
export function movesOf<S extends PaymentStatus = PaymentStatus>(event: PaymentEvent, among?: readonly S[]): Move<S>[] {
  return PAYMENT_STATES.filter(
    (s): s is S => among === undefined || (among as readonly PaymentStatus[]).includes(s),
  ).flatMap((s) => {
    const decided = transition(s, event);
    return decided.ok && decided.move !== null ? [decided.move as Move<S>] : [];
  });
}

/** The states a set of moves leaves from: the `status IN (…)` of the statement that writes them. */
export function fromStates(moves: readonly Move[]): PaymentStatus[] {
  return moves.map((m) => m.from);
}

/** The one state a statement's moves go to; throws when they go to several (one statement, one target). */
export function targetOf(moves: readonly Move[]): PaymentStatus {
  const to = moves[0]?.to;
  if (to === undefined || moves.some((m) => m.to !== to)) throw new Error("a statement's moves go to one state");
  return to;
}

function made(from: PaymentStatus, to: PaymentStatus): Move {
  if (!PAYMENT_TRANSITIONS[from].includes(to)) throw new Error(`the state table has no move ${from} → ${to}`);
  return Object.freeze({ from, to }) as Move;
}
