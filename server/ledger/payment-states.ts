// The states of an x402 payment and the moves between them: the one table every write of `payments.status` follows.
// The database holds the same table (payment_transitions) and refuses any other move with a trigger, and a CHECK
// refuses any other state; a test keeps the two tables equal. Which event makes which move is payment-transition.ts's
// `transition`, the only maker of the moves the stores write. docs/architecture.md's table is generated from the data
// below (what each state means, and what makes each move).
import "server-only";

export const PAYMENT_STATES = [
  "claimed",
  "pending",
  "settled",
  "serving",
  "served",
  "unserved",
  "refunded",
  "failed",
  "expired",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATES)[number];

/** What each state means. */
export const STATE_MEANINGS: Record<PaymentStatus, string> = {
  claimed:
    "the idempotency key is ours, with the digest of the request it pays for, before anything moves money. A claim whose lease ran out belongs to a dead server: one retry takes it over (claimed → claimed).",
  pending: "broadcast, its confirmation not seen within the wait; any instance finishes it from the chain.",
  settled:
    "landed and credited; a call payment's whole credit is the call's hold, which only the request that paid may spend.",
  serving: "a retry (or a takeover of a dead server's call) is serving it from its hold, under that request's lease.",
  served:
    "the call was captured with its receipt in one commit (a top-up: credited); its answer is kept for the payer's repeat.",
  unserved:
    "the upstream failed before it answered (or nobody waited for a late settlement): the hold stays reserved, and one retry of the request that paid serves it.",
  refunded:
    "the upstream answered but the database refused the call's record for good: the hold was returned to the payer's credit, and a retry is told so; no receipt.",
  failed: "nothing moved; the same payment may be claimed again.",
  expired: "nothing moved, and nothing ever can.",
};

/** Every allowed move, from → to, with what makes it; a state's move to itself refreshes its lease. */
export const PAYMENT_MOVES = {
  claimed: {
    claimed: "a retry takes over a claim whose lease ran out (its server died, or lost the database)",
    pending: "sent, its confirmation not seen within the settle wait",
    settled: "landed; a call payment's credit and the call's hold, in one statement",
    served: "a top-up landed and was credited (the credit is what it bought)",
    failed: "refused before it moved, or its transaction belongs to another payment",
    expired: "sent, and it can never land (blockhash or validBefore passed unseen)",
  },
  pending: {
    settled: "landed, found by the retry of the request that paid",
    unserved: "landed, found by the sweeper with nobody waiting; the retry serves it",
    served: "a top-up landed (retry or sweeper)",
    failed: "its transfer failed on chain",
    expired: "it can never land",
  },
  settled: {
    serving: "the server serving it died; one retry serves it",
    served: "the call was captured with its receipt",
    unserved: "the upstream failed before it answered, or the database went away before it did",
    refunded: "the database refused the call's record for good: its hold returned to the payer's credit",
  },
  serving: {
    serving: "the server serving it died again; one retry serves it",
    served: "the call was captured with its receipt",
    unserved: "as from settled",
    refunded: "as from settled",
  },
  unserved: {
    serving: "the retry of the request that paid takes it",
  },
  served: {},
  refunded: {},
  failed: {
    claimed: "the same payment sent again (nothing had moved)",
  },
  expired: {},
} as const satisfies Record<PaymentStatus, Partial<Record<PaymentStatus, string>>>;

/** A state by its name, for code outside this folder: `STATE.pending`. Spelling a state anywhere else is refused. */
export const STATE = Object.fromEntries(PAYMENT_STATES.map((s) => [s, s])) as { readonly [S in PaymentStatus]: S };

/** The states of a payment whose transfer landed: its money moved and was credited. */
export const LANDED_STATES = [
  "settled",
  "serving",
  "served",
  "unserved",
  "refunded",
] as const satisfies readonly PaymentStatus[];

/** Every allowed move, from → the states it may go to. */
export const PAYMENT_TRANSITIONS = Object.fromEntries(
  PAYMENT_STATES.map((s) => [s, Object.keys(PAYMENT_MOVES[s]) as PaymentStatus[]]),
) as unknown as Record<PaymentStatus, readonly PaymentStatus[]>;

/** The allowed moves as (from, to) pairs, for the database's copy of the table and its test. */
export function transitionPairs(): [PaymentStatus, PaymentStatus][] {
  return (Object.entries(PAYMENT_TRANSITIONS) as [PaymentStatus, readonly PaymentStatus[]][]).flatMap(([from, tos]) =>
    tos.map((to): [PaymentStatus, PaymentStatus] => [from, to]),
  );
}

/** The states a move may leave from to reach `to`. */
export function statesBefore(to: PaymentStatus): PaymentStatus[] {
  return transitionPairs()
    .filter(([, t]) => t === to)
    .map(([from]) => from);
}

export type { PaymentPurpose } from "../x402/paid-routes";

/** Why a failed payment failed, where the chain said so. */
export const FAILED_ON_CHAIN = "settlement_failed_on_chain";
/** The reason an expired payment's answer names: its transfer can never land. */
export const SETTLEMENT_EXPIRED = "settlement_expired";
