-- A lane's last send is compared with the database clock of a request's verification at microsecond precision: a
-- settlement of the same payer released a millisecond before a back-to-back call verified must not read as "sent since".
ALTER TABLE "settlement_lanes" ALTER COLUMN "last_sent_at" SET DATA TYPE TIMESTAMPTZ(6);
