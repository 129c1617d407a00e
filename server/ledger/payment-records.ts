// Payment rows: the durable idempotency record of every x402 payment (STYLE §7). A row is claimed by its payload
// hash (unique) before the first await that moves money; its status then walks
// claimed → settled → served, or → failed (settle refused; may be claimed again), or settled → unserved (upstream
// failed after settlement; the credit stays and one retry with the same header serves it) → serving → served.
// A `claimed`, `settled` or `serving` row whose lease (PAYMENT_LEASE_MS since its last update) ran out belongs to a
// process that died; one retry with the same header takes it over and finishes it from the chain's answer (issue #7).
import type { DbClient, Payment } from "../db";
import { isUniqueViolation } from "../db";
import { STORED_SETTINGS_JSON } from "../settings/read-settings";

export type PaymentStatus = "claimed" | "settled" | "serving" | "served" | "unserved" | "failed";
export type PaymentPurpose = "chat" | "topup";

export interface NewPayment {
  payloadHash: string;
  network: string;
  payer: string;
  payTo: string;
  units: bigint;
  purpose: PaymentPurpose;
}

export type ClaimOutcome = { claimed: true; payment: Payment } | { claimed: false; existing: Payment };

/**
 * The stored settings (key → value) and the payment with this payload hash, if any, in one round trip: the paid
 * routes need both before anything else (issue #7's profile: queries per request).
 */
export async function findPaymentWithStoredSettings(db: DbClient, payloadHash: string | null): Promise<{ stored: Record<string, string> | null; payment: Payment | null }> {
  const rows = await db.$queryRaw<{ stored: Record<string, string> | null; payment: PaymentJson | null }[]>`
    SELECT ${STORED_SETTINGS_JSON} AS stored,
      (SELECT json_build_object(
         'id', id, 'payloadHash', payload_hash, 'txSignature', tx_signature, 'network', network, 'payer', payer,
         'payTo', pay_to, 'units', units::text, 'purpose', purpose, 'status', status, 'failureReason', failure_reason,
         'inferenceId', inference_id, 'createdAt', created_at, 'updatedAt', updated_at)
       FROM payments WHERE ${payloadHash}::text IS NOT NULL AND payload_hash = ${payloadHash}) AS payment`;
  const row = rows[0]!;
  const p = row.payment;
  return {
    stored: row.stored,
    payment: p ? { ...p, units: BigInt(p.units), createdAt: new Date(p.createdAt), updatedAt: new Date(p.updatedAt) } : null,
  };
}

type PaymentJson = Omit<Payment, "units" | "createdAt" | "updatedAt"> & { units: string; createdAt: string; updatedAt: string };

/**
 * Claims the payment for settlement. Exactly one of any number of concurrent claims of one payload wins; a payment
 * whose settlement failed may be claimed again (settlement failures move no money).
 */
export async function claimPayment(db: DbClient, input: NewPayment): Promise<ClaimOutcome> {
  try {
    const payment = await db.payment.create({ data: { ...input, status: "claimed" satisfies PaymentStatus } });
    return { claimed: true, payment };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const existing = await db.payment.findUniqueOrThrow({ where: { payloadHash: input.payloadHash } });
  if (existing.status === "failed") {
    const reclaimed = await db.payment.updateMany({
      where: { id: existing.id, status: "failed" satisfies PaymentStatus },
      data: { status: "claimed" satisfies PaymentStatus, failureReason: null },
    });
    if (reclaimed.count === 1) return { claimed: true, payment: { ...existing, status: "claimed", failureReason: null } };
  }
  return { claimed: false, existing };
}

/** Records a refused or failed settlement; nothing moved on chain. */
export async function markSettlementFailed(db: DbClient, paymentId: string, reason: string): Promise<void> {
  await db.payment.updateMany({
    where: { id: paymentId, status: "claimed" satisfies PaymentStatus },
    data: { status: "failed" satisfies PaymentStatus, failureReason: reason.slice(0, 200) },
  });
}

/** Marks a settled (or serving) payment as unserved: its credit stays, and one retry may serve it. */
export async function markUnserved(db: DbClient, paymentId: string, reason: string): Promise<void> {
  await db.payment.updateMany({
    where: { id: paymentId, status: { in: ["settled", "serving"] satisfies PaymentStatus[] } },
    data: { status: "unserved" satisfies PaymentStatus, failureReason: reason.slice(0, 200) },
  });
}

/** Takes an unserved payment for serving; true for exactly one of concurrent retries. */
export async function beginServingUnserved(db: DbClient, paymentId: string): Promise<boolean> {
  const taken = await db.payment.updateMany({
    where: { id: paymentId, status: "unserved" satisfies PaymentStatus },
    data: { status: "serving" satisfies PaymentStatus },
  });
  return taken.count === 1;
}

/**
 * Takes over a payment whose holder's lease ran out: `claimed` (settling) or, with `statuses`, `settled`/`serving`
 * (being served). Refreshes the lease; true for exactly one of concurrent takers.
 */
export async function takeOverStaleClaim(db: DbClient, paymentId: string, leaseMs: number, statuses: PaymentStatus[] = ["claimed"], next?: PaymentStatus): Promise<boolean> {
  const taken = await db.payment.updateMany({
    where: { id: paymentId, status: { in: statuses }, updatedAt: { lt: new Date(Date.now() - leaseMs) } },
    data: { updatedAt: new Date(), ...(next ? { status: next } : {}) },
  });
  return taken.count === 1;
}
