// Per-IP limits for requests that need no login but write rows (grant and sign-in challenges): a fixed-window counter
// per (bucket, hashed IP) in the database, so the limit holds across instances and restarts.
import "server-only";
import type { DbClient } from "../db";
import { AppError } from "../errors";

/** Length of one counting window. */
export const IP_RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * Requests per IP per window, by bucket. A wallet needs one challenge per claim or sign-in; ten a minute leaves room
 * for retries while capping the live challenges one address can hold (a challenge lives five minutes).
 */
export const IP_RATE_LIMITS = {
  grant_challenge: 10,
  operator_challenge: 10,
} as const;

export type IpRateLimitBucket = keyof typeof IP_RATE_LIMITS;

/** Counts one request of `ipHash` in `bucket`; past the limit throws 429 `rate_limited` with Retry-After. */
export async function limitByIp(db: DbClient, bucket: IpRateLimitBucket, ipHash: string, now = Date.now()): Promise<void> {
  const windowStart = new Date(now - (now % IP_RATE_LIMIT_WINDOW_MS));
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO ip_rate_limit_windows (bucket, ip_hash, window_start, count) VALUES (${bucket}, ${ipHash}, ${windowStart}, 1)
    ON CONFLICT (bucket, ip_hash) DO UPDATE SET
      count = CASE WHEN ip_rate_limit_windows.window_start = EXCLUDED.window_start THEN ip_rate_limit_windows.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING count`;
  const limit = IP_RATE_LIMITS[bucket];
  if (Number(rows[0]!.count) > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + IP_RATE_LIMIT_WINDOW_MS - now) / 1000));
    throw new AppError("rate_limited", `at most ${limit} of these requests per minute from one network address`, { retry_after_s: retryAfter }, { "Retry-After": String(retryAfter) });
  }
}
