// The lock that serialises EVM nonce assignment per (chain, relayer address) across every instance that shares the
// database: a PostgreSQL advisory lock held by one transaction, in which the relay ledger (evm-relay-ledger.ts) picks
// the nonce and records the signed transaction.
import "server-only";
import { createHash } from "node:crypto";
import type { DbClient, DbTransaction } from "../db";

/**
 * Runs `fn` while no other holder of `key` (in this process or another sharing the database) runs, inside the database
 * transaction that holds the lock: what `fn` writes through `tx` commits when it returns, before the lock is released.
 */
export type NonceLock = <T>(key: string, fn: (tx: DbTransaction) => Promise<T>) => Promise<T>;

/** How long one holder may keep the lock: the relay ledger reads and writes, and signing. */
const NONCE_LOCK_HOLD_MS = 60_000;
/** How long to wait for a pool connection to take the lock on. */
const NONCE_LOCK_CONNECTION_WAIT_MS = 30_000;

/** The advisory lock's 64-bit key for `key`. */
function advisoryKey(key: string): bigint {
  return createHash("sha256").update(`signet:evm-nonce:${key}`).digest().readBigInt64BE(0);
}

/**
 * A NonceLock over `db`: pg_advisory_xact_lock inside an interactive transaction, released when it ends (commit,
 * rollback or a dropped connection alike, so a crashed holder never keeps it). Callers in one process queue in memory
 * first, so each key holds at most one pool connection; on PGlite (one connection, one process) that queue is the
 * whole lock and the advisory lock is uncontended.
 */
export function createPgNonceLock(db: () => Promise<DbClient>): NonceLock {
  const local = new Map<string, Promise<unknown>>();
  return async <T>(key: string, fn: (tx: DbTransaction) => Promise<T>): Promise<T> => {
    const previous = local.get(key) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const prisma = await db();
        return prisma.$transaction(
          async (tx) => {
            await tx.$executeRaw`SELECT pg_advisory_xact_lock(${advisoryKey(key)}::bigint)`;
            return fn(tx);
          },
          { timeout: NONCE_LOCK_HOLD_MS, maxWait: NONCE_LOCK_CONNECTION_WAIT_MS },
        );
      });
    local.set(key, run);
    try {
      return await run;
    } finally {
      if (local.get(key) === run) local.delete(key);
    }
  };
}

/** Answers of a node that mean the nonce was taken (by another sender, or a transaction already pending): pick again. */
const NONCE_TAKEN =
  /nonce too low|nonce has already been used|already known|replacement transaction underpriced|replacement underpriced|transaction underpriced/i;

/** True when `err` (or any error it wraps) is a node refusing the transaction's nonce. */
export function isNonceTaken(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { message, details, shortMessage } = e as { message?: unknown; details?: unknown; shortMessage?: unknown };
    if ([message, details, shortMessage].some((m) => typeof m === "string" && NONCE_TAKEN.test(m))) return true;
  }
  return false;
}
