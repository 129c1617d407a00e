// The states of an x402 payment and the moves between them: the one table every write of `payments.status` follows.
// The database holds the same table (payment_transitions) and refuses any other move with a trigger, and a CHECK
// refuses any other state; a test keeps the two tables equal.
//
// Every move, and what makes it (payment-states.test.ts holds this list equal to PAYMENT_TRANSITIONS):
//   claimed → claimed: a retry takes over a claim whose lease ran out (its server died, or lost the database)
//   claimed → pending: sent, its confirmation not seen within the settle wait
//   claimed → settled: landed; a chat payment's credit and the call's hold, in one statement
//   claimed → served: a top-up landed and was credited (the credit is what it bought)
//   claimed → failed: refused before it moved, or its transaction belongs to another payment
//   claimed → expired: sent, and it can never land (blockhash or validBefore passed unseen)
//   pending → settled: landed, found by the retry of the request that paid
//   pending → unserved: landed, found by the sweeper with nobody waiting; the retry serves it
//   pending → served: a top-up landed (retry or sweeper)
//   pending → failed: its transfer failed on chain
//   pending → expired: it can never land
//   settled → serving: the server serving it died; one retry serves it
//   settled → served: the call was captured with its receipt
//   settled → unserved: the upstream failed, the receipt could not be logged, or the database went away
//   serving → serving: the server serving it died again; one retry serves it
//   serving → served: the call was captured with its receipt
//   serving → unserved: as from settled
//   unserved → serving: the retry of the request that paid takes it
//   unserved → served: captured after all by the call that left it
//   served → unserved: the capture was undone (its receipt could not be logged)
//   failed → claimed: the same payment sent again (nothing had moved)
//
// - claimed: the idempotency key is ours, with the digest of the request it pays for, before anything moves money. A
//   claim whose lease ran out belongs to a dead server: one retry takes it over (claimed → claimed).
// - pending: broadcast, its confirmation not seen within the wait; any instance finishes it from the chain.
// - settled: landed and credited; a chat payment's whole credit is the call's hold.
// - serving / unserved: the hold stays reserved for this payment; only the request that paid may spend it.
// - served: the call was captured with its receipt (a top-up: credited); its answer is kept for the payer's repeat.
// - failed: nothing moved; the same payment may be claimed again. expired: nothing moved, and nothing ever can.
import "server-only";

export const PAYMENT_STATES = ["claimed", "pending", "settled", "serving", "served", "unserved", "failed", "expired"] as const;
export type PaymentStatus = (typeof PAYMENT_STATES)[number];

/** A state by its name, for code outside this folder: `STATE.pending`. Spelling a state anywhere else is refused. */
export const STATE = Object.fromEntries(PAYMENT_STATES.map((s) => [s, s])) as { readonly [S in PaymentStatus]: S };

/** The states of a payment whose transfer landed: its money moved and was credited. */
export const LANDED_STATES = ["settled", "serving", "served", "unserved"] as const satisfies readonly PaymentStatus[];

/** Every allowed move, from → to; a state's move to itself refreshes its lease. */
export const PAYMENT_TRANSITIONS = {
  claimed: ["claimed", "pending", "settled", "served", "failed", "expired"],
  pending: ["settled", "unserved", "served", "failed", "expired"],
  settled: ["serving", "served", "unserved"],
  serving: ["serving", "served", "unserved"],
  unserved: ["serving", "served"],
  served: ["unserved"],
  failed: ["claimed"],
  expired: [],
} as const satisfies Record<PaymentStatus, readonly PaymentStatus[]>;

/** A move the table allows, checked where the move is written: `move("claimed", "failed")`. */
export type Move<From extends PaymentStatus = PaymentStatus> = {
  [F in From]: { from: F; to: (typeof PAYMENT_TRANSITIONS)[F][number] };
}[From];

/** The moves a ledger credit makes: a claim, or a late-confirmed broadcast, whose transfer landed. */
export type CreditMove = Move<"claimed" | "pending">;

/** The allowed moves as (from, to) pairs, for the database's copy of the table and its test. */
export function transitionPairs(): [PaymentStatus, PaymentStatus][] {
  return (Object.entries(PAYMENT_TRANSITIONS) as [PaymentStatus, readonly PaymentStatus[]][]).flatMap(([from, tos]) => tos.map((to): [PaymentStatus, PaymentStatus] => [from, to]));
}

/** The states a move may leave from to reach `to`. */
export function statesBefore(to: PaymentStatus): PaymentStatus[] {
  return transitionPairs()
    .filter(([, t]) => t === to)
    .map(([from]) => from);
}

export type PaymentPurpose = "chat" | "topup";

/** Why a failed payment failed, where the chain said so. */
export const FAILED_ON_CHAIN = "settlement_failed_on_chain";
/** The reason an expired payment's answer names: its transfer can never land. */
export const SETTLEMENT_EXPIRED = "settlement_expired";
