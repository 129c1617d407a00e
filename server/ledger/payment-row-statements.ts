// The payment row's step inside a ledger statement: a credit, a capture, a refund and a lease renewal each move the
// payment they belong to in the ledger's own statement, so money and payment state commit together. The moves follow
// payment-states.ts, each one a `Move` transition() made; every other write of a payment row is payment-store.ts's.
import "server-only";
import { Prisma } from "../db";
import type { PaymentStatus } from "./payment-states";
import { fromStates, targetOf, type CreditMove, type Move } from "./payment-transition";

/**
 * The ledger's credit moves its payment (claimed or pending → settled, served or unserved) in the credit's own
 * statement: this is that statement's payment step, returning the id when it moved. From `claimed`, only the attempt
 * that holds the claim moves it; from `pending` (nobody's), the move makes `attempt` the holder (null: nobody, the
 * sweeper's move to unserved).
 */
export function creditedPaymentStatement(
  payment: { id: string; txSignature: string; move: CreditMove; attempt: string | null } | null,
): Prisma.Sql {
  if (payment === null) return Prisma.sql`SELECT NULL::uuid AS id WHERE false`;
  return Prisma.sql`
    UPDATE payments SET status = ${payment.move.to}, tx_signature = ${payment.txSignature}, updated_at = now(), attempt = ${payment.attempt}::uuid,
      pending_payload = NULL, pending_blockhash = NULL, pending_valid_before = NULL, pending_beneficiary = NULL
    WHERE id = ${payment.id}::uuid AND status = ${payment.move.from}
      AND (${payment.move.from === "pending"} OR attempt IS NOT DISTINCT FROM ${payment.attempt}::uuid)
    RETURNING id`;
}

/**
 * A paid call's capture makes its payment's `moves` (settled or serving → served) in the capture's statement, keeping
 * its answer for the payer's repeat: the payment step, over the capture's `hold` step (its id and payment_id). The hold
 * decides who captures (one `held` hold, one capture), not the attempt: a record written late by the server that
 * served the call still lands, and a takeover that served it again then finds the hold captured.
 */
export function servedPaymentStatement(hold: string, answer: string | null, moves: readonly Move[]): Prisma.Sql {
  return Prisma.sql`
    UPDATE payments p SET status = ${targetOf(moves)}, inference_id = h.id, updated_at = now(), answer = ${answer} FROM ${Prisma.raw(hold)} h
    WHERE p.id = h.payment_id AND p.status IN (${Prisma.join(fromStates(moves))})
    RETURNING p.id, p.tx_signature, p.units`;
}

/**
 * A paid call whose record the database refused for good makes its payment's `moves` (settled or serving → refunded)
 * in the statement that returns its hold to the payer's credit: the payment step, over that statement's `hold` step.
 */
export function refundedPaymentStatement(hold: string, reason: string, moves: readonly Move[]): Prisma.Sql {
  return Prisma.sql`
    UPDATE payments p SET status = ${targetOf(moves)}, failure_reason = ${reason.slice(0, 200)}, updated_at = now() FROM ${Prisma.raw(hold)} h
    WHERE p.id = h.payment_id AND p.status IN (${Prisma.join(fromStates(moves))})
    RETURNING p.id`;
}

/** A paid call's lease renewal: its payment (settled or serving) stays its own while it serves, if it still holds it. */
export function renewedPaymentStatement(payment: { id: string; attempt: string | null } | null): Prisma.Sql {
  return Prisma.sql`
    UPDATE payments SET updated_at = now()
    WHERE ${payment?.id ?? null}::uuid IS NOT NULL AND id = ${payment?.id ?? null}::uuid AND attempt IS NOT DISTINCT FROM ${payment?.attempt ?? null}::uuid
      AND status IN (${Prisma.join(["settled", "serving"] satisfies PaymentStatus[])})`;
}
