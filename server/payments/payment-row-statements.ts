// The payment row's step inside a ledger statement: a credit, a capture, an undone capture and a lease renewal each
// move the payment they belong to in the ledger's own statement, so money and payment state commit together. The
// moves follow payment-states.ts; every other write of a payment row is payment-store.ts's.
import "server-only";
import { Prisma } from "../db";
import type { Move, PaymentStatus } from "./payment-states";

/**
 * The ledger's credit moves its payment (claimed or pending → settled, served or unserved) in the credit's own
 * statement: this is that statement's payment step, returning the id when it moved.
 */
export function creditedPaymentStatement(payment: { id: string; txSignature: string; move: Move<"claimed" | "pending"> } | null): Prisma.Sql {
  if (payment === null) return Prisma.sql`SELECT NULL::uuid AS id WHERE false`;
  return Prisma.sql`
    UPDATE payments SET status = ${payment.move.to}, tx_signature = ${payment.txSignature}, updated_at = now(),
      pending_payload = NULL, pending_blockhash = NULL, pending_valid_before = NULL, pending_beneficiary = NULL
    WHERE id = ${payment.id}::uuid AND status = ${payment.move.from}
    RETURNING id`;
}

/**
 * A paid call's capture moves its payment (settled, serving or unserved → served) in the capture's statement, keeping
 * its answer for the payer's repeat: the payment step, over the capture's `hold` step (its id and payment_id).
 */
export function servedPaymentStatement(hold: string, answer: string | null): Prisma.Sql {
  const from = SERVED_FROM.map((m) => m.from);
  return Prisma.sql`
    UPDATE payments p SET status = ${"served" satisfies PaymentStatus}, inference_id = h.id, updated_at = now(), answer = ${answer}::jsonb FROM ${Prisma.raw(hold)} h
    WHERE p.id = h.payment_id AND p.status IN (${Prisma.join(from)})
    RETURNING p.id, p.tx_signature, p.units`;
}
const SERVED_FROM: Move[] = [
  { from: "settled", to: "served" },
  { from: "serving", to: "served" },
  { from: "unserved", to: "served" },
];

/**
 * An undone capture (its receipt could not be logged) moves its payment back (served → unserved) in the undo's
 * statement, for one retry of the request that paid: the payment step, over the undo's `undo` and `moved` steps.
 */
export function unservedPaymentStatement(undo: string, moved: string, reason: string): Prisma.Sql {
  const move: Move<"served"> = { from: "served", to: "unserved" };
  return Prisma.sql`
    UPDATE payments p SET status = ${move.to}, inference_id = NULL, answer = NULL, failure_reason = ${reason.slice(0, 200)}, updated_at = now()
    FROM ${Prisma.raw(undo)} u WHERE p.id = u.payment_id AND p.status = ${move.from} AND EXISTS (SELECT 1 FROM ${Prisma.raw(moved)})`;
}

/** A paid call's lease renewal: its payment (settled or serving) stays its own while it serves. */
export function renewedPaymentStatement(paymentId: string | null): Prisma.Sql {
  return Prisma.sql`
    UPDATE payments SET updated_at = now()
    WHERE ${paymentId}::uuid IS NOT NULL AND id = ${paymentId}::uuid AND status IN (${Prisma.join(["settled", "serving"] satisfies PaymentStatus[])})`;
}
