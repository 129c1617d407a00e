-- Payment failures become one counted row per (network, stage, reason, UTC hour): fake payment headers can no longer
-- add a row each. The old rows are folded into their hour before the old table goes.
-- CreateTable
CREATE TABLE "payment_failure_counts" (
    "network" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "payment_failure_counts_pkey" PRIMARY KEY ("network","stage","reason","hour")
);

INSERT INTO "payment_failure_counts" ("network", "stage", "reason", "hour", "count")
SELECT "network", "stage", "reason", date_trunc('hour', "created_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)::integer
FROM "payment_failures"
GROUP BY 1, 2, 3, 4;

-- DropTable
DROP TABLE "payment_failures";

-- CreateTable
CREATE TABLE "ip_rate_limit_windows" (
    "bucket" TEXT NOT NULL,
    "ip_hash" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "ip_rate_limit_windows_pkey" PRIMARY KEY ("bucket","ip_hash")
);

-- CreateTable
CREATE TABLE "operator_session_generations" (
    "pubkey" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "operator_session_generations_pkey" PRIMARY KEY ("pubkey")
);

-- CreateIndex
CREATE INDEX "payment_failure_counts_hour_idx" ON "payment_failure_counts"("hour");

-- CreateIndex
CREATE INDEX "ip_rate_limit_windows_window_start_idx" ON "ip_rate_limit_windows"("window_start");

-- CreateIndex
CREATE INDEX "grant_challenges_expires_at_idx" ON "grant_challenges"("expires_at");

-- CreateIndex
CREATE INDEX "operator_challenges_expires_at_idx" ON "operator_challenges"("expires_at");
