-- A settlement broadcast whose confirmation was not seen in time is `pending`, not failed. The row keeps what any
-- instance needs to finish it from the chain: the client's signed payload (to re-broadcast the same transfer) and what
-- decides its expiry (a Solana transaction's blockhash; an EIP-3009 authorization's validBefore), and whom a top-up
-- credits. All are cleared when the row leaves `pending`.
ALTER TABLE "payments" ADD COLUMN "pending_payload" JSONB;
ALTER TABLE "payments" ADD COLUMN "pending_blockhash" TEXT;
ALTER TABLE "payments" ADD COLUMN "pending_valid_before" TIMESTAMPTZ(3);
ALTER TABLE "payments" ADD COLUMN "pending_beneficiary" TEXT;
