// One settlement in flight per payer's paying account, in the database so it holds across instances. Without it, a
// payer funded for one call can send many distinct payments at once: each verifies alone, all are sent, and every one
// but the first fails on chain, at the fee payer's (Solana) or the relay's (Base) expense. In its lane a settlement
// knows whether another of the same payer was sent since it verified, and then re-checks the chain before it sends.
// A payer whose settlements keep failing is refused for a while.
import "server-only";
import type { DbClient } from "../db";

/** How long a settlement waits for its payer's lane before it is refused (429, retry shortly). */
export const LANE_WAIT_MS = 15_000;
/** Settlement failures within FAILURE_WINDOW_MS that refuse the payer for REFUSE_FOR_MS. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 10 * 60_000;
export const REFUSE_FOR_MS = 2 * 60_000;

export type LaneOutcome =
  | { ok: true; lane: Lane }
  /** The payer's settlements keep failing: refused until `retryAfterMs` has passed. */
  | { ok: false; reason: "payer_refused"; retryAfterMs: number }
  /** Another settlement of the same payer held the lane for the whole wait. */
  | { ok: false; reason: "lane_busy"; retryAfterMs: number };

export interface Lane {
  source: string;
  /** Another settlement of this payer was sent after `verifiedAt`: the chain must be asked again before sending. */
  sentSinceVerify: boolean;
  /** Frees the lane, recording whether a transaction was sent and whether the settlement failed. */
  release(result: { sent: boolean; failed: boolean }): Promise<void>;
}

/**
 * Takes the payer's lane for `holder` (the payment id), waiting up to LANE_WAIT_MS while another holds it.
 * `verifiedAt` is the database's clock from before the payment was verified, so it compares with `last_sent_at`
 * (also the database's) whatever the clocks of the instances.
 */
export async function takeSettlementLane(db: DbClient, source: string, holder: string, verifiedAt: Date, leaseMs: number): Promise<LaneOutcome> {
  const deadline = Date.now() + LANE_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const rows = await db.$queryRaw<{ last_sent_at: Date | null; refused_ms: number | null }[]>`
      INSERT INTO settlement_lanes (source, holder, held_until)
      VALUES (${source}, ${holder}::uuid, now() + make_interval(secs => ${leaseMs}::double precision / 1000))
      ON CONFLICT (source) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until
        WHERE (settlement_lanes.holder IS NULL OR settlement_lanes.held_until < now())
          AND (settlement_lanes.refused_until IS NULL OR settlement_lanes.refused_until < now())
      RETURNING last_sent_at, NULL::double precision AS refused_ms`;
    const row = rows[0];
    if (row) {
      return { ok: true, lane: openLane(db, source, holder, row.last_sent_at !== null && row.last_sent_at.getTime() >= verifiedAt.getTime()) };
    }
    const refused = await db.$queryRaw<{ refused_ms: number | null }[]>`
      SELECT EXTRACT(EPOCH FROM (refused_until - now())) * 1000 AS refused_ms FROM settlement_lanes WHERE source = ${source} AND refused_until > now()`;
    if (refused[0]?.refused_ms) return { ok: false, reason: "payer_refused", retryAfterMs: Math.ceil(Number(refused[0].refused_ms)) };
    if (Date.now() >= deadline) return { ok: false, reason: "lane_busy", retryAfterMs: 1_000 };
    // Settlements take a few hundred milliseconds on a real cluster: poll gently, with jitter.
    await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) + Math.random() * 10));
  }
}

function openLane(db: DbClient, source: string, holder: string, sentSinceVerify: boolean): Lane {
  return {
    source,
    sentSinceVerify,
    async release({ sent, failed }) {
      await db.$executeRaw`
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
    },
  };
}
