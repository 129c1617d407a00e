-- A kept answer holds any string a model may return. jsonb refuses U+0000 and lone UTF-16 surrogates (SQLSTATE 22P05),
-- so the answer is kept as the JSON text the service wrote (JSON.stringify escapes both), inside an envelope with the
-- x402 signed receipt first issued for it: a replay gives back the same receipt, never a new one. Answers kept before
-- this migration are completion bodies with no receipt.
ALTER TABLE "payments" ALTER COLUMN "answer" TYPE TEXT
  USING CASE WHEN "answer" IS NULL THEN NULL ELSE json_build_object('body', "answer", 'x402_receipt', NULL)::text END;

-- The request that holds a payment now: set by the claim and by every takeover, and required by every later write of
-- that request (its lease renewal, a failure it records, the hand-back after a lost database), so a write that comes
-- late, after another request took the payment over, changes nothing.
ALTER TABLE "payments" ADD COLUMN "attempt" UUID;

-- A paid call whose record the database refuses for good (a permanent error, not a blip): its hold is returned to the
-- payer's credit and the payment ends `refunded`, so its retry gets that answer instead of a second call.
-- A captured call is never undone any more (its capture and its receipt are one commit), and a call is never captured
-- from `unserved` (only a retry serves an unserved payment, from `serving`).
ALTER TABLE "payments" DROP CONSTRAINT "payments_status_check";
ALTER TABLE "payments" ADD CONSTRAINT "payments_status_check"
  CHECK ("status" IN ('claimed', 'pending', 'settled', 'serving', 'served', 'unserved', 'refunded', 'failed', 'expired'));
DELETE FROM "payment_transitions" WHERE ("from_status", "to_status") IN (('unserved', 'served'), ('served', 'unserved'));
INSERT INTO "payment_transitions" ("from_status", "to_status") VALUES ('settled', 'refunded'), ('serving', 'refunded');
