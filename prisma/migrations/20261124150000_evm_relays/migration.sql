-- The relayer's own record of every EVM transaction it signed, one row per (chain, relayer address, nonce): a nonce in
-- this table is never given to another transaction. The signed bytes are kept so the same transaction (same hash) is
-- broadcast again until the chain's mined count passes its nonce, however many times a node drops it.
CREATE TABLE "evm_relays" (
    "chain_id" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "nonce" INTEGER NOT NULL,
    "raw_tx" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sends" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "evm_relays_pkey" PRIMARY KEY ("chain_id", "address", "nonce")
);

CREATE UNIQUE INDEX "evm_relays_tx_hash_key" ON "evm_relays"("tx_hash");
