// Removes rows that requests needing no login leave behind once they can no longer matter: expired grant and sign-in
// challenges, spent rate-limit windows, prepaid nonces too old to replay, old failure counts. Runs in the background
// from the routes that write such rows, at most once per interval per process; an advisory lock keeps concurrent
// instances from doing it twice.
import "server-only";
import type { DbClient } from "../db";
import type { Runtime } from "../context/runtime";
import {
  AGENT_WINDOW_RETENTION_MS,
  EXPIRED_CHALLENGE_GRACE_MS,
  FAILURE_COUNT_RETENTION_MS,
  IP_WINDOW_RETENTION_MS,
  NONCE_RETENTION_MS,
} from "./table-retention";

/** How often one process purges. Rows written between purges are bounded by the per-IP and per-agent limits. */
const PURGE_INTERVAL_MS = 10 * 60_000;
/** Arbitrary constant key for pg_try_advisory_xact_lock: one purge at a time across instances. */
const PURGE_LOCK_KEY = 72_910_405;

export interface PurgedRows {
  grantChallenges: number;
  operatorChallenges: number;
  rateLimitWindows: number;
  ipRateLimitWindows: number;
  requestNonces: number;
  paymentFailureCounts: number;
}

/** Deletes what has expired; returns the counts, or null when another instance is purging right now. */
export async function purgeExpiredRows(db: DbClient, now: number): Promise<PurgedRows | null> {
  // How long each kind of row is kept, and why: table-retention.ts.
  const challengeCutoff = new Date(now - EXPIRED_CHALLENGE_GRACE_MS);
  const agentWindowCutoff = new Date(now - AGENT_WINDOW_RETENTION_MS);
  const ipWindowCutoff = new Date(now - IP_WINDOW_RETENTION_MS);
  const nonceCutoff = new Date(now - NONCE_RETENTION_MS);
  const failureCutoff = new Date(now - FAILURE_COUNT_RETENTION_MS);
  return db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<
      { locked: boolean }[]
    >`SELECT pg_try_advisory_xact_lock(${PURGE_LOCK_KEY}) AS locked`;
    if (!lock?.locked) return null;
    return {
      grantChallenges: (await tx.grantChallenge.deleteMany({ where: { expiresAt: { lt: challengeCutoff } } })).count,
      operatorChallenges: (await tx.operatorChallenge.deleteMany({ where: { expiresAt: { lt: challengeCutoff } } }))
        .count,
      rateLimitWindows: (await tx.rateLimitWindow.deleteMany({ where: { windowStart: { lt: agentWindowCutoff } } }))
        .count,
      ipRateLimitWindows: (await tx.ipRateLimitWindow.deleteMany({ where: { windowStart: { lt: ipWindowCutoff } } }))
        .count,
      requestNonces: (await tx.requestNonce.deleteMany({ where: { createdAt: { lt: nonceCutoff } } })).count,
      paymentFailureCounts: (await tx.paymentFailureCount.deleteMany({ where: { hour: { lt: failureCutoff } } })).count,
    };
  });
}

/**
 * Starts a purge of `runtime`'s database in the background when the runtime has not run one within PURGE_INTERVAL_MS.
 * Never throws.
 */
export function schedulePurge(runtime: Pick<Runtime, "db" | "clock" | "state" | "log">): void {
  const now = runtime.clock.now();
  const last = runtime.state.lastPurgeAt;
  if (last !== null && now - last < PURGE_INTERVAL_MS) return;
  runtime.state.lastPurgeAt = now;
  void purgeExpiredRows(runtime.db, now).then(
    (purged) => {
      if (purged) runtime.log.debug({ event: "purge.done", ...purged }, "purged expired rows");
    },
    (err: unknown) => runtime.log.warn({ event: "purge.failed", err }, "purging expired rows failed"),
  );
}
