-- The payment states and the moves between them, held by the database as server/payments/payment-states.ts holds
-- them (a test keeps the two equal): a CHECK refuses any other state, and a trigger any other move.
-- An expired payment (its transfer never landed, and never can) is a state of its own, no longer a failure reason.
UPDATE "payments" SET "status" = 'expired' WHERE "status" = 'failed' AND "failure_reason" = 'settlement_expired';
ALTER TABLE "payments" ADD CONSTRAINT "payments_status_check"
  CHECK ("status" IN ('claimed', 'pending', 'settled', 'serving', 'served', 'unserved', 'failed', 'expired'));

CREATE TABLE "payment_transitions" (
  "from_status" TEXT NOT NULL,
  "to_status" TEXT NOT NULL,
  CONSTRAINT "payment_transitions_pkey" PRIMARY KEY ("from_status", "to_status")
);
INSERT INTO "payment_transitions" ("from_status", "to_status") VALUES
  ('claimed', 'claimed'),
  ('claimed', 'pending'),
  ('claimed', 'settled'),
  ('claimed', 'served'),
  ('claimed', 'failed'),
  ('claimed', 'expired'),
  ('pending', 'settled'),
  ('pending', 'unserved'),
  ('pending', 'served'),
  ('pending', 'failed'),
  ('pending', 'expired'),
  ('settled', 'serving'),
  ('settled', 'served'),
  ('settled', 'unserved'),
  ('serving', 'serving'),
  ('serving', 'served'),
  ('serving', 'unserved'),
  ('unserved', 'serving'),
  ('unserved', 'served'),
  ('served', 'unserved'),
  ('failed', 'claimed');

CREATE FUNCTION "payments_refuse_unlisted_move"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status
     AND NOT EXISTS (SELECT 1 FROM payment_transitions WHERE from_status = OLD.status AND to_status = NEW.status) THEN
    RAISE EXCEPTION 'payment % may not move from % to %', OLD.id, OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER "payments_moves" BEFORE UPDATE OF "status" ON "payments"
  FOR EACH ROW EXECUTE FUNCTION "payments_refuse_unlisted_move"();
