// Per-IP limits for requests that write rows or cost a database statement before anyone has paid (grant and sign-in
// challenges, signed prepaid requests): a fixed-window counter per (bucket, hashed IP) in the database, so the limit
// holds across instances and restarts. A signed request's address is counted over several rows (its shards), so agents
// behind one address do not queue on one row lock.
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
function countIpRequest(bucket: IpRateLimitBucket, ipHash: string, now: number): Prisma.Sql {
  return Prisma.sql`INSERT INTO ip_rate_limit_windows (bucket, ip_hash, window_start, count) VALUES (${bucket}, ${ipHash}, ${ipWindowStart(now)}, 1)
    ON CONFLICT (bucket, ip_hash) DO UPDATE SET
      count = CASE WHEN ip_rate_limit_windows.window_start = EXCLUDED.window_start THEN ip_rate_limit_windows.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING count`;
}

/** Most rows one address's count is spread over: the window's limit may be passed by one fewer than this. */
export const MAX_IP_COUNT_SHARDS = 32;
/** Requests of the limit per shard: a window admits under 1% past its limit, and a limit under twice this exactly. */
const LIMIT_PER_SHARD = 100;

/**
 * How many rows one address's count in a window is spread over under `limit`, so that agents behind one address do
 * not queue on one row lock. Each shard but the counting one can hide one uncommitted request, so a window admits at
 * most this minus one past its limit: one row (exact) below 200, under 1% of the limit above.
 */
export function ipCountShards(limit: number): number {
  return Math.min(MAX_IP_COUNT_SHARDS, Math.max(1, Math.floor(limit / LIMIT_PER_SHARD)));
}

/**
 * The shard an agent's requests are counted on first, of `shards` (FNV-1a of its key): always the same one for an
 * agent, whose own requests queue on its own rows anyway. Another request holding that row moves the count to a free
 * one.
 */
export function ipCountShard(agentPubkey: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < agentPubkey.length; i++) hash = Math.imul(hash ^ agentPubkey.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

/** The row key of `ipHash`'s shard `shard`: shard 0 is the address's hash alone, as a count of one row is. */
export function ipShardKey(ipHash: string, shard: number): string {
  return shard === 0 ? ipHash : `${ipHash}.${shard}`;
}

/**
 * countIpRequest for a count spread over `ipCountShards(limit)` rows: counts one request of `agentPubkey` on its
 * shard's row, or on any row of the address no other request holds, and returns the address's `count` over all of
 * them (the `count_ip_request` function: the other shards are read after the counting one is locked).
 */
export function countShardedIpRequest(
  bucket: IpRateLimitBucket,
  ipHash: string,
  agentPubkey: string,
  limit: number,
  now: number,
): Prisma.Sql {
  const shards = ipCountShards(limit);
  const own = ipShardKey(ipHash, ipCountShard(agentPubkey, shards));
  const keys = Array.from({ length: shards }, (_, k) => ipShardKey(ipHash, k));
  return Prisma.sql`SELECT count_ip_request(${bucket}, ${own}, ${keys}::text[], ${ipWindowStart(now)}) AS count`;
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
