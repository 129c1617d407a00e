-- CreateTable
CREATE TABLE "agents" (
    "pubkey" TEXT NOT NULL,
    "points_total" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("pubkey")
);

-- CreateTable
CREATE TABLE "balances" (
    "agent_pubkey" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "units" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "balances_pkey" PRIMARY KEY ("agent_pubkey","network")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "agent_pubkey" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "units" BIGINT NOT NULL,
    "payment_id" UUID,
    "inference_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" UUID NOT NULL,
    "payload_hash" TEXT NOT NULL,
    "tx_signature" TEXT,
    "network" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "pay_to" TEXT NOT NULL,
    "units" BIGINT NOT NULL,
    "purpose" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "failure_reason" TEXT,
    "inference_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inference_logs" (
    "id" UUID NOT NULL,
    "agent_pubkey" TEXT NOT NULL,
    "network" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "upstream" TEXT NOT NULL,
    "payment_id" UUID,
    "tx_signature" TEXT,
    "price_units" BIGINT,
    "cost_units" BIGINT NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "receipt" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inference_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_payment_id_kind_key" ON "ledger_entries"("payment_id", "kind");

-- CreateIndex
CREATE INDEX "ledger_entries_agent_pubkey_network_id_idx" ON "ledger_entries"("agent_pubkey", "network", "id");

-- CreateIndex
CREATE UNIQUE INDEX "payments_payload_hash_key" ON "payments"("payload_hash");

-- CreateIndex
CREATE UNIQUE INDEX "payments_tx_signature_key" ON "payments"("tx_signature");

-- CreateIndex
CREATE INDEX "payments_status_updated_at_idx" ON "payments"("status", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "inference_logs_payment_id_key" ON "inference_logs"("payment_id");

-- CreateIndex
CREATE INDEX "inference_logs_tx_signature_idx" ON "inference_logs"("tx_signature");

-- CreateIndex
CREATE INDEX "inference_logs_created_at_id_idx" ON "inference_logs"("created_at", "id");

-- CreateIndex
CREATE INDEX "inference_logs_agent_pubkey_created_at_idx" ON "inference_logs"("agent_pubkey", "created_at");

-- SECURITY: a balance can never go below zero, whatever code path writes it (issue #3/#4).
ALTER TABLE "balances" ADD CONSTRAINT "balances_units_non_negative" CHECK ("units" >= 0);
