-- CreateTable
CREATE TABLE "request_nonces" (
    "agent_pubkey" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "request_nonces_pkey" PRIMARY KEY ("agent_pubkey","nonce")
);

-- CreateTable
CREATE TABLE "rate_limit_windows" (
    "agent_pubkey" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY ("agent_pubkey")
);

-- CreateTable
CREATE TABLE "credit_holds" (
    "id" UUID NOT NULL,
    "agent_pubkey" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "units" BIGINT NOT NULL,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "credit_holds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "grant_challenges" (
    "nonce" TEXT NOT NULL,
    "agent_pubkey" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grant_challenges_pkey" PRIMARY KEY ("nonce")
);

-- CreateTable
CREATE TABLE "grants" (
    "agent_pubkey" TEXT NOT NULL,
    "ip_hash" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "units" BIGINT NOT NULL,
    "day" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grants_pkey" PRIMARY KEY ("agent_pubkey")
);

-- CreateIndex
CREATE INDEX "request_nonces_created_at_idx" ON "request_nonces"("created_at");

-- CreateIndex
CREATE INDEX "credit_holds_status_created_at_idx" ON "credit_holds"("status", "created_at");

-- CreateIndex
CREATE INDEX "grants_ip_hash_idx" ON "grants"("ip_hash");

-- CreateIndex
CREATE INDEX "grants_day_idx" ON "grants"("day");
