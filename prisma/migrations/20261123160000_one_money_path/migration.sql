-- One money path: every call is served from a hold. A paid call's hold is written with its settlement credit and
-- belongs to that payment (same id); a prepaid hold carries a lease that its server renews while it serves.
ALTER TABLE "credit_holds" ADD COLUMN "payment_id" UUID;
ALTER TABLE "credit_holds" ADD COLUMN "charged_units" BIGINT;
ALTER TABLE "credit_holds" ADD COLUMN "lease_expires_at" TIMESTAMPTZ(3);
CREATE UNIQUE INDEX "credit_holds_payment_id_key" ON "credit_holds"("payment_id");

-- What the upstream said the call cost, beside `cost_units` (what the ledger charged): they differ only when a cost
-- ran past its hold, which reconcile reports.
ALTER TABLE "inference_logs" ADD COLUMN "upstream_cost_units" BIGINT;

-- Holds taken before leases existed get the default lease from when they were taken, so a hold whose server died is
-- still released by the sweeper and reported by reconcile.
UPDATE "credit_holds" SET "lease_expires_at" = "created_at" + INTERVAL '120 seconds' WHERE "status" = 'held' AND "lease_expires_at" IS NULL;
