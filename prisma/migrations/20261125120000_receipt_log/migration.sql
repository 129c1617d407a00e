-- The public receipt log (RFC 6962 Merkle tree, served as C2SP tiles). A served call's receipt is staged by the very
-- statement that stores it: one small row, no index, so a call's statement takes no lock and writes little more than
-- before. One sequencer at a time (an advisory lock, on any instance) reads the staged receipts' stored JSON, encodes
-- their entries, gives them dense indices, stores every completed perfect subtree's hash and signs a checkpoint for
-- the new size, all in one transaction. A receipt staged twice (a statement sent again after a lost answer) is logged
-- once.
CREATE TABLE "log_staging" (
    "inference_id" UUID NOT NULL,
    "staged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Leaf `idx` of the tree: the entry bytes as served in the entry bundles. Indices are 0..size-1, each exactly once.
CREATE TABLE "log_entries" (
    "idx" BIGINT NOT NULL,
    "inference_id" UUID NOT NULL,
    "entry" BYTEA NOT NULL,
    "logged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "log_entries_pkey" PRIMARY KEY ("idx"),
    CONSTRAINT "log_entries_idx_check" CHECK ("idx" >= 0)
);
CREATE UNIQUE INDEX "log_entries_inference_id_key" ON "log_entries"("inference_id");

-- The tiles' rows: the hash of each perfect subtree of 256^k leaves, [idx * 2^level, (idx + 1) * 2^level) at level
-- 8k. Level 0 is the leaf hashes. The heights between are rehashed from these when a proof or a root needs them.
CREATE TABLE "log_hashes" (
    "level" SMALLINT NOT NULL,
    "idx" BIGINT NOT NULL,
    "hash" BYTEA NOT NULL,

    CONSTRAINT "log_hashes_pkey" PRIMARY KEY ("level", "idx")
);

-- Every checkpoint the log signed: the signed note (the log's signature only).
CREATE TABLE "log_checkpoints" (
    "size" BIGINT NOT NULL,
    "root" BYTEA NOT NULL,
    "note" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "log_checkpoints_pkey" PRIMARY KEY ("size")
);

-- Witness cosignatures of published checkpoints: the signature line as the witness wrote it.
CREATE TABLE "log_cosignatures" (
    "size" BIGINT NOT NULL,
    "witness" TEXT NOT NULL,
    "line" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "log_cosignatures_pkey" PRIMARY KEY ("size", "witness"),
    CONSTRAINT "log_cosignatures_size_fkey" FOREIGN KEY ("size") REFERENCES "log_checkpoints"("size") ON DELETE RESTRICT ON UPDATE CASCADE
);
