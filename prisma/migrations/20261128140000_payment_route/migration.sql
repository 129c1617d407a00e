-- A payment's purpose is what it buys: `call` (one call of its route, served from its hold) or `topup` (prepaid
-- credit); the paid route it was made on is its own column, which names its log events. The last release filed every
-- paid call as `chat`, a Responses call included: those rows take the route `chat`. Their request digest still names
-- the route they were made on, and that digest, not this column, binds a retry to its request, so a Responses payment
-- in flight is still served on its own route.
ALTER TABLE "payments" ADD COLUMN "route" TEXT;
UPDATE "payments" SET "route" = CASE WHEN "purpose" = 'topup' THEN 'topup' ELSE 'chat' END,
                      "purpose" = CASE WHEN "purpose" = 'topup' THEN 'topup' ELSE 'call' END;
ALTER TABLE "payments" ALTER COLUMN "route" SET NOT NULL;
-- A top-up is bought on the top-up route only, and a call on any other; an instance of the last release, which writes
-- `chat`, is refused.
ALTER TABLE "payments" ADD CONSTRAINT "payments_purpose_check"
  CHECK (("purpose" = 'topup' AND "route" = 'topup') OR ("purpose" = 'call' AND "route" <> 'topup'));
