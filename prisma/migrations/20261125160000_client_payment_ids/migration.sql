-- A client may name a payment with an id of its own (the x402 payment-identifier extension). The id belongs to the
-- payment first claimed under it, within its payer's ids: the same id with another payment of that payer is refused,
-- and nobody but the payer can take an id in the payer's scope. NULLs are distinct, so payments without an id never
-- collide.
ALTER TABLE "payments" ADD COLUMN "client_payment_id" TEXT;
CREATE UNIQUE INDEX "payments_payer_client_payment_id_key" ON "payments"("payer", "client_payment_id");
