// A per-agent fixed-window rate limit kept in the database, so it holds across instances: one upsert per request.
import type { DbClient } from "../db";
import { AppError } from "../errors";

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Counts this request; past `limit` in the current window it is 429 `rate_limited` with Retry-After. */
export async function enforceRateLimit(db: DbClient, agentPubkey: string, limit: number, now = Date.now()): Promise<void> {
  const windowStart = new Date(now - (now % RATE_LIMIT_WINDOW_MS));
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limit_windows (agent_pubkey, window_start, count) VALUES (${agentPubkey}, ${windowStart}, 1)
    ON CONFLICT (agent_pubkey) DO UPDATE SET
      count = CASE WHEN rate_limit_windows.window_start = EXCLUDED.window_start THEN rate_limit_windows.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING count`;
  const count = Number(rows[0]?.count ?? 0);
  if (count > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + RATE_LIMIT_WINDOW_MS - now) / 1000));
    throw new AppError("rate_limited", `at most ${limit} signed requests per minute`, { retry_after_s: retryAfter }, { "Retry-After": String(retryAfter) });
  }
}
