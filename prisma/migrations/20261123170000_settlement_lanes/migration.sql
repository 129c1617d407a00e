-- One settlement in flight per payer's paying account (a Solana token account, or an EVM `from` on one chain), across
-- every instance: the holder and its lease, when that payer's last settlement was sent, and the count of its recent
-- settlement failures, which refuse the payer for a while once it keeps failing.
CREATE TABLE "settlement_lanes" (
    "source" TEXT NOT NULL,
    "holder" UUID,
    "held_until" TIMESTAMPTZ(3),
    "last_sent_at" TIMESTAMPTZ(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "failures_since" TIMESTAMPTZ(3),
    "refused_until" TIMESTAMPTZ(3),

    CONSTRAINT "settlement_lanes_pkey" PRIMARY KEY ("source")
);
