// Per-IP limits for requests that write rows or cost a database statement before anyone has paid (grant and sign-in
// challenges, signed prepaid requests): a fixed-window counter per (bucket, hashed IP) in the database, so the limit
// holds across instances and restarts.
import "server-only";
import { Prisma, type DbClient } from "../db";
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

/** The buckets with a fixed limit, and the prepaid route's, whose limit is configured (PREPAID_IP_RATE_LIMIT_PER_MINUTE). */
export type IpRateLimitBucket = keyof typeof IP_RATE_LIMITS | "prepaid_inference";

/** Start of the window `now` falls in. */
function ipWindowStart(now: number): Date {
  return new Date(now - (now % IP_RATE_LIMIT_WINDOW_MS));
}

/**
 * The statement that counts one request of `ipHash` in `bucket` and returns the window's `count`, for a caller's own
 * statement (as a CTE) or on its own.
 */
export function countIpRequest(bucket: IpRateLimitBucket, ipHash: string, now: number): Prisma.Sql {
  return Prisma.sql`INSERT INTO ip_rate_limit_windows (bucket, ip_hash, window_start, count) VALUES (${bucket}, ${ipHash}, ${ipWindowStart(now)}, 1)
    ON CONFLICT (bucket, ip_hash) DO UPDATE SET
      count = CASE WHEN ip_rate_limit_windows.window_start = EXCLUDED.window_start THEN ip_rate_limit_windows.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING count`;
}

/** Throws 429 `rate_limited` with Retry-After when `count` (what countIpRequest returned) is past `limit`. */
export function refuseOverIpLimit(count: number, limit: number, now: number): void {
  if (count <= limit) return;
  const retryAfter = Math.max(1, Math.ceil((ipWindowStart(now).getTime() + IP_RATE_LIMIT_WINDOW_MS - now) / 1000));
  throw new AppError(
    "rate_limited",
    `at most ${limit} of these requests per minute from one network address`,
    { retry_after_s: retryAfter },
    { "Retry-After": String(retryAfter) },
  );
}

/** Counts one request of `ipHash` in `bucket`; past the limit throws 429 `rate_limited` with Retry-After. */
export async function limitByIp(
  db: DbClient,
  bucket: keyof typeof IP_RATE_LIMITS,
  ipHash: string,
  now: number,
): Promise<void> {
  const rows = await db.$queryRaw<{ count: number }[]>(countIpRequest(bucket, ipHash, now));
  refuseOverIpLimit(Number(rows[0]!.count), IP_RATE_LIMITS[bucket], now);
}
