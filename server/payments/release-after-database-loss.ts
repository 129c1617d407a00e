// A paid request that stopped because the database went away leaves its payment held: claimed (settling) or settled
// and serving, under a lease nobody renews any more. Its client retries after the 503's Retry-After and should not be
// told "already being processed" until the lease runs out, so the payment is handed back to that retry as soon as the
// database answers again (payment-store.ts `releaseAfterDatabaseLoss`). If the database stays away past the retries,
// the lease still ends on its own and the retry takes the payment over then.
import "server-only";
import type { DbClient } from "../db";
import type { Logger } from "../log";
import type { Clock } from "../clock";
import { whenDatabaseBack } from "../db/when-database-back";
import { releaseAfterDatabaseLoss, type HeldPayment } from "./payment-store";
import { movesOf } from "../ledger/payment-transition";

/**
 * When `err` is a lost database, hands `payment` back to its request's retry once the database is back, if the attempt
 * that lost it still holds it then.
 */
export function releaseIfDatabaseLost(
  ctx: { db: DbClient; clock: Clock; log: Logger },
  payment: HeldPayment,
  err: unknown,
): void {
  whenDatabaseBack(
    ctx,
    err,
    { event: "payment.released_after_database_loss", fields: { payment_id: payment.id } },
    () => releaseAfterDatabaseLoss(ctx.db, payment, movesOf({ type: "database-lost" })),
  );
}
