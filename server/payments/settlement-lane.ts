// One settlement in flight per payer's paying account, in the database so it holds across instances. Without it, a
// payer funded for one call can send many distinct payments at once: each verifies alone, all are sent, and every one
// but the first fails on chain, at the fee payer's (Solana) or the relay's (Base) expense. In its lane a settlement
// knows whether another of the same payer was sent since it verified, and then re-checks the chain before it sends.
// A payer whose settlements keep failing is refused for a while.
import "server-only";
import { Prisma, type DbClient } from "../db";
import { hotQuery } from "../db/hot-query";
import type { Clock } from "../clock";
import type { Gauge } from "prom-client";
import type { LaneSends } from "../context/runtime";

/** How long a settlement waits for its payer's lane before it is refused (429, retry shortly). */
export const LANE_WAIT_MS = 15_000;
/** Settlement failures within FAILURE_WINDOW_MS that refuse the payer for REFUSE_FOR_MS. */
export const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 10 * 60_000;
const REFUSE_FOR_MS = 2 * 60_000;

export type LaneOutcome =
  | { ok: true; lane: Lane }
  /** The payer's settlements keep failing: refused until `retryAfterMs` has passed. */
  | { ok: false; reason: "payer_refused"; retryAfterMs: number }
  /** Another settlement of the same payer held the lane for the whole wait. */
  | { ok: false; reason: "lane_busy"; retryAfterMs: number };

export interface Lane {
  source: string;
  /** Another settlement of this payer was sent after `verifiedAtMs`: the chain must be asked again before sending. */
  sentSinceVerify: boolean;
  /**
   * The release as one SQL statement, for a caller that frees the lane inside its own statement (a data-modifying
   * CTE); the caller calls `released()` once that statement committed.
   */
  releaseStatement(result: { sent: boolean; failed: boolean }): Prisma.Sql;
  released(): void;
  /**
   * Frees the lane, recording whether a transaction was sent and whether the settlement failed; once only. Returns the
   * send's time by the database's clock (epoch ms) when one was recorded.
   */
  release(result: { sent: boolean; failed: boolean }): Promise<number | null>;
}

/** Lane sources remembered at most; past it the oldest are dropped (they only cost one more simulation). */
const MAX_LANE_SENDS = 10_000;

/** Remembers this process's send released on `source`, by the database's clock, as committed now. */
export function noteLaneSend(sends: LaneSends, source: string, sentMs: number, clock: Clock): void {
  sends.delete(source);
  sends.set(source, { sentMs, committedAt: clock.monotonic() });
  for (const oldest of sends.keys()) {
    if (sends.size <= MAX_LANE_SENDS) break;
    sends.delete(oldest);
  }
}

/**
 * When a request's checks began by the database's clock, at the latest: `estimateMs`, or just past this process's
 * last send on `source` when that send committed before the checks began (`checkedFrom`, monotonic).
 */
export function checksBeganMs(sends: LaneSends, source: string, estimateMs: number, checkedFrom: number): number {
  const own = sends.get(source);
  // One microsecond, the precision of last_sent_at: the checks began strictly after that send's release. A tie of the
  // two readings proves no order, so it keeps the estimate.
  return own && own.committedAt < checkedFrom ? Math.max(estimateMs, own.sentMs + 0.001) : estimateMs;
}

/** One attempt's answer: taken (with the lane's last send), or not, with the payer's refusal if any. */
export interface LaneAttempt {
  taken: boolean;
  /** The lane's last release after a send, in epoch ms at microsecond precision (the database's clock). */
  lastSentMs: number | null;
  refusedMs: number | null;
}

/**
 * A timestamp expression as epoch ms at microsecond precision (float8), the one unit both sides of the "sent since the
 * verification began" comparison are read in: the lane's last send and the claim statement's now().
 */
export function epochMsOf(timestamp: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(extract(epoch from ${timestamp}) * 1000)::float8`;
}

/**
 * The take as one SQL statement (for a CTE), for each holder `holders` yields (one uuid column): the lane is free, or
 * its lease ran out, or its holder is the same payment (only the payment's one owner, its claim's, settles it), and
 * the payer is not refused. RETURNING last_sent_ms (epoch ms, microsecond precision) when taken.
 */
export function takeLaneStatement(source: string, holders: Prisma.Sql, leaseMs: number): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO settlement_lanes (source, holder, held_until)
    SELECT ${source}, h.holder, now() + make_interval(secs => ${leaseMs}::double precision / 1000) FROM (${holders}) AS h(holder)
    ON CONFLICT (source) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until
      WHERE (settlement_lanes.holder IS NULL OR settlement_lanes.held_until < now() OR settlement_lanes.holder = EXCLUDED.holder)
        AND (settlement_lanes.refused_until IS NULL OR settlement_lanes.refused_until < now())
    RETURNING ${epochMsOf(Prisma.raw("last_sent_at"))} AS last_sent_ms`;
}

/** How long the payer stays refused, in ms (null: not refused), as an SQL expression. */
export function laneRefusedMsExpression(source: string): Prisma.Sql {
  return Prisma.sql`(SELECT EXTRACT(EPOCH FROM (refused_until - now())) * 1000 FROM settlement_lanes WHERE source = ${source} AND refused_until > now())`;
}

/**
 * Takes the payer's lane for `holder` (the payment id), waiting up to LANE_WAIT_MS while another holds it.
 * `verifiedAtMs` is the database's clock (epoch ms) from before the payment was verified, so it compares with `last_sent_at`
 * (also the database's) whatever the clocks of the instances. `first` is an attempt already made by the caller's own
 * statement (the claim's). The wait is timed by `clock`, and counted in `waiting` while it lasts.
 */
export async function takeSettlementLane(
  db: DbClient,
  source: string,
  holder: string,
  verifiedAtMs: number,
  leaseMs: number,
  clock: Clock,
  first?: LaneAttempt,
  waiting?: Pick<Gauge, "inc" | "dec">,
): Promise<LaneOutcome> {
  const deadline = clock.monotonic() + LANE_WAIT_MS;
  let waited = false;
  try {
    for (let attempt = 0; ; attempt++) {
      const tried = attempt === 0 && first ? first : await tryLane(db, source, holder, leaseMs);
      if (tried.taken) {
        return {
          ok: true,
          lane: openLane(db, source, holder, tried.lastSentMs !== null && tried.lastSentMs >= verifiedAtMs),
        };
      }
      if (tried.refusedMs) return { ok: false, reason: "payer_refused", retryAfterMs: Math.ceil(tried.refusedMs) };
      if (clock.monotonic() >= deadline) return { ok: false, reason: "lane_busy", retryAfterMs: 1_000 };
      if (!waited) waiting?.inc();
      waited = true;
      // Settlements take a few hundred milliseconds on a real cluster: poll gently, with jitter.
      await clock.sleep(Math.min(200, 10 * 2 ** Math.min(attempt, 4)) + Math.random() * 10);
    }
  } finally {
    if (waited) waiting?.dec();
  }
}

/** One take, and the payer's refusal when not taken, in one statement. */
async function tryLane(db: DbClient, source: string, holder: string, leaseMs: number): Promise<LaneAttempt> {
  const rows = await hotQuery<{ taken: bigint; last_sent_ms: number | null; refused_ms: number | null }>(
    db,
    Prisma.sql`
    WITH lane AS (${takeLaneStatement(source, Prisma.sql`SELECT ${holder}::uuid`, leaseMs)})
    SELECT (SELECT count(*) FROM lane) AS taken, (SELECT last_sent_ms FROM lane) AS last_sent_ms, ${laneRefusedMsExpression(source)} AS refused_ms`,
  );
  return laneAttempt(rows[0]!);
}

/** The attempt from a statement's columns `taken`, `last_sent_ms` and `refused_ms`. */
export function laneAttempt(row: {
  taken: bigint | number;
  last_sent_ms: number | string | null;
  refused_ms: number | string | null;
}): LaneAttempt {
  return {
    taken: Number(row.taken) === 1,
    lastSentMs: row.last_sent_ms === null ? null : Number(row.last_sent_ms),
    refusedMs: row.refused_ms === null ? null : Number(row.refused_ms),
  };
}

function openLane(db: DbClient, source: string, holder: string, sentSinceVerify: boolean): Lane {
  let free = false;
  const releaseStatement = ({ sent, failed }: { sent: boolean; failed: boolean }) => Prisma.sql`
    UPDATE settlement_lanes SET
      holder = NULL, held_until = NULL,
      last_sent_at = CASE WHEN ${sent} THEN now() ELSE last_sent_at END,
      failures = CASE WHEN NOT ${failed} THEN 0
                      WHEN failures_since > now() - make_interval(secs => ${FAILURE_WINDOW_MS / 1000}) THEN failures + 1 ELSE 1 END,
      failures_since = CASE WHEN NOT ${failed} THEN NULL
                            WHEN failures_since > now() - make_interval(secs => ${FAILURE_WINDOW_MS / 1000}) THEN failures_since ELSE now() END,
      refused_until = CASE WHEN ${failed} AND failures + 1 >= ${MAX_FAILURES} AND failures_since > now() - make_interval(secs => ${FAILURE_WINDOW_MS / 1000})
                           THEN now() + make_interval(secs => ${REFUSE_FOR_MS / 1000}) ELSE refused_until END
    WHERE source = ${source} AND holder = ${holder}::uuid`;
  const sentMs = epochMsOf(Prisma.raw("last_sent_at"));
  return {
    source,
    sentSinceVerify,
    releaseStatement,
    released() {
      free = true;
    },
    async release(result) {
      if (free) return null;
      const rows = await hotQuery<{ sent_ms: number | null }>(
        db,
        Prisma.sql`${releaseStatement(result)} RETURNING CASE WHEN ${result.sent} THEN ${sentMs} END AS sent_ms`,
      );
      free = true;
      return rows[0]?.sent_ms == null ? null : Number(rows[0].sent_ms);
    },
  };
}
