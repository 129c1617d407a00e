// The relayer's ledger of EVM transactions (table evm_relays): every nonce the relayer signs with is recorded, with the
// signed bytes, under the nonce lock and before the transaction is sent. A recorded nonce is never given to another
// transaction; its own bytes are broadcast again until the chain's mined count passes it.
import "server-only";
import { keccak256, TransactionNotFoundError, type Hex } from "viem";
import type { DbTransaction } from "../db";
import type { Logger } from "../log";
import { isNonceTaken, type NonceLock } from "./evm-nonce-lock";

/**
 * A relayed transaction not mined after this long since its last send is broadcast again: two Base blocks. A node that
 * dropped it (or a load-balanced RPC whose node never saw it) would otherwise leave its nonce empty and wedge every
 * later one; sending identical bytes again can never make a second transaction with that nonce.
 */
const RELAY_REBROADCAST_AFTER_MS = 4_000;
/** How often each instance sweeps its relays for ones to broadcast again. */
export const RELAY_SWEEP_EVERY_MS = 2_000;
/**
 * Rows this far below the mined count are deleted. Not at once: a reorg can un-mine the last blocks, and a row kept
 * is what lets its transaction be broadcast again rather than its nonce left empty.
 */
export const RELAY_KEEP_BELOW_MINED = 128;
/** Tries per relay when the node says a fresh nonce was already used by a transaction this ledger never recorded. */
export const RELAY_SEND_ATTEMPTS = 3;

/** What the ledger needs of one relayer on one chain. */
export interface RelayChain {
  chainId: number;
  /** Lower-case 0x address of the relayer. */
  address: string;
  /** The relayer's transaction count in the latest block: every nonce below it is mined. */
  minedCount(): Promise<number>;
  /** The node's pending count: may lag a transaction it has not seen (yet). */
  pendingCount(): Promise<number>;
  sendRaw(raw: Hex): Promise<unknown>;
  /**
   * True when the node knows the transaction (pending or mined), false when it says it does not; rejects when the node
   * cannot be asked (a relay whose lookup fails is taken as ours, never sent again under another nonce).
   */
  knows(hash: Hex): Promise<boolean>;
  /** Where a failed send is logged (the relay is broadcast again either way); none: not logged. */
  log?: Logger;
}

interface RecordedRelay {
  nonce: number;
  rawTx: Hex;
  txHash: Hex;
}

function lockKey(chain: RelayChain): string {
  return `${chain.chainId}:${chain.address}`;
}

/** The lowest nonce free of the ledger at or above the node's pending count. Call under the lock. */
async function nextNonce(tx: DbTransaction, chain: RelayChain, pending: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ top: number | null }[]>`
    SELECT max(nonce) AS top FROM evm_relays WHERE chain_id = ${chain.chainId} AND address = ${chain.address}`;
  const top = row?.top ?? null;
  return top === null ? pending : Math.max(pending, Number(top) + 1);
}

/** Rows not yet mined whose last send is older than RELAY_REBROADCAST_AFTER_MS, their send time moved to now. */
async function claimStale(tx: DbTransaction, chain: RelayChain, mined: number): Promise<RecordedRelay[]> {
  const rows = await tx.$queryRaw<{ nonce: number; raw_tx: string; tx_hash: string }[]>`
    UPDATE evm_relays SET sent_at = now(), sends = sends + 1
    WHERE chain_id = ${chain.chainId} AND address = ${chain.address} AND nonce >= ${mined}
      AND sent_at < now() - make_interval(secs => ${RELAY_REBROADCAST_AFTER_MS}::double precision / 1000)
    RETURNING nonce, raw_tx, tx_hash`;
  return rows
    .map((r) => ({ nonce: Number(r.nonce), rawTx: r.raw_tx as Hex, txHash: r.tx_hash as Hex }))
    .sort((a, b) => a.nonce - b.nonce);
}

/** Broadcasts recorded transactions again, lowest nonce first. "already known" or "nonce too low" means it is in. */
async function rebroadcast(chain: RelayChain, rows: RecordedRelay[]): Promise<void> {
  for (const row of rows) {
    await chain.sendRaw(row.rawTx).catch((err: unknown) => {
      if (!isNonceTaken(err))
        chain.log?.warn(
          {
            chain_id: chain.chainId,
            nonce: row.nonce,
            transaction: row.txHash,
            detail: String((err as Error)?.message ?? err).slice(0, 200),
          },
          "could not broadcast a relay again",
        );
    });
  }
}

/**
 * Relays one transaction: under the lock, claims what is stale to broadcast again, takes the lowest nonce that is
 * neither below the node's pending count nor in the ledger, signs with it (`sign`) and records the signed bytes; after
 * the lock, sends. Answers the transaction's hash once it is recorded: whatever the send answers, the ledger keeps broadcasting
 * it until its nonce is mined, so the caller waits for its receipt as for any send. Throws only when nothing was
 * recorded (`sign` failed, the database or the node's counts could not be read), or when a node keeps saying the
 * fresh nonce was used by a transaction this ledger never recorded (the key used elsewhere).
 */
export async function relayTransaction(
  lock: NonceLock,
  chain: RelayChain,
  sign: (nonce: number) => Promise<Hex>,
): Promise<Hex> {
  for (let attempt = 1; ; attempt++) {
    // Read before the lock, so it is held for the database and local signing only (on PGlite it holds the one
    // connection). A count that is stale by then is safe: the ledger's own rows are what keep a nonce from reuse.
    const [mined, pending] = await Promise.all([chain.minedCount(), chain.pendingCount()]);
    const { relay, stale } = await lock(lockKey(chain), async (tx) => {
      const stale = await claimStale(tx, chain, mined);
      const nonce = await nextNonce(tx, chain, Math.max(mined, pending));
      const rawTx = await sign(nonce);
      const txHash = keccak256(rawTx);
      await tx.$executeRaw`
        INSERT INTO evm_relays (chain_id, address, nonce, raw_tx, tx_hash) VALUES (${chain.chainId}, ${chain.address}, ${nonce}, ${rawTx}, ${txHash})`;
      return { relay: { nonce, rawTx, txHash }, stale };
    });
    // Not awaited: the stale ones need no answer, and a node holds this one (a nonce above a gap) until they arrive.
    void rebroadcast(chain, stale);
    try {
      await chain.sendRaw(relay.rawTx);
      return relay.txHash;
    } catch (err) {
      if (!isNonceTaken(err) || (await chain.knows(relay.txHash).catch(() => true))) {
        if (!isNonceTaken(err))
          chain.log?.warn(
            {
              chain_id: chain.chainId,
              nonce: relay.nonce,
              transaction: relay.txHash,
              detail: String((err as Error)?.message ?? err).slice(0, 200),
            },
            "a relay's first send failed; it is broadcast again until mined",
          );
        return relay.txHash;
      }
      // The nonce was used outside this ledger: the row is below the mined count (done), and the next try takes a
      // nonce above it.
      if (attempt >= RELAY_SEND_ATTEMPTS) throw err;
    }
  }
}

/**
 * One sweep of one relayer: under the lock, deletes rows long mined and claims the stale ones; after it, broadcasts
 * them again. Safe on every instance at once (each stale row is claimed by one sweeper per RELAY_REBROADCAST_AFTER_MS).
 */
export async function sweepRelays(lock: NonceLock, chain: RelayChain): Promise<number> {
  // A mined count stale by the time the lock is taken only keeps rows longer and broadcasts a just-mined one again.
  const mined = await chain.minedCount();
  const stale = await lock(lockKey(chain), async (tx) => {
    await tx.$executeRaw`
      DELETE FROM evm_relays WHERE chain_id = ${chain.chainId} AND address = ${chain.address} AND nonce < ${mined - RELAY_KEEP_BELOW_MINED}`;
    return claimStale(tx, chain, mined);
  });
  await rebroadcast(chain, stale);
  return stale.length;
}

/**
 * Whether the node knows a transaction: false only on its own "not found"; an unreachable or failing node rejects,
 * since "could not ask" is no evidence that the nonce went to someone else.
 */
export async function nodeKnows(
  client: { getTransaction(args: { hash: Hex }): Promise<unknown> },
  hash: Hex,
): Promise<boolean> {
  try {
    await client.getTransaction({ hash });
    return true;
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return false;
    throw err;
  }
}
