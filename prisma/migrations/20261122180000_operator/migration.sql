-- CreateTable
CREATE TABLE "operator_challenges" (
    "nonce" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "operator_challenges_pkey" PRIMARY KEY ("nonce")
);

-- CreateTable
CREATE TABLE "payment_failures" (
    "id" BIGSERIAL NOT NULL,
    "network" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_failures_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payment_failures_network_created_at_idx" ON "payment_failures"("network", "created_at");
