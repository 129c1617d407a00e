-- A payment serves only the request that paid it. Its claim stores a digest of what it buys (the route and the
-- request's deciding fields; for a top-up, its amount, network and beneficiary), and whom its credit goes to. Every
-- later use of the payment (a retry after settlement_pending, an unserved retry, a takeover of a stale claim) must
-- present the same digest. Rows claimed before this migration have none, and are resumed by no request.
ALTER TABLE "payments" ADD COLUMN "request_digest" TEXT;
ALTER TABLE "payments" ADD COLUMN "beneficiary" TEXT;
-- A served chat call's answer (the completion body its receipt signs), kept for PAID_ANSWER_RETENTION_HOURS so the
-- payer's repeat of the same request gets it again instead of a second service; then purged.
ALTER TABLE "payments" ADD COLUMN "answer" JSONB;
CREATE INDEX "payments_answer_kept_idx" ON "payments"("updated_at") WHERE "answer" IS NOT NULL;
-- A failed payment moved nothing: its client payment id is free for the payer's next payment.
UPDATE "payments" SET "client_payment_id" = NULL WHERE "status" = 'failed';
