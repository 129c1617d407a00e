// Admitting a signed prepaid request in one database round trip (each extra query adds latency to every request):
// count it in the agent's rate-limit window, claim its nonce, and read the operator settings. Kept in the database, so
// the limit and replay protection hold across restarts and instances.
import "server-only";
import type { DbClient } from "../db";
import { AppError } from "../errors";
import type { Settings } from "../settings/setting-definitions";
import { settingsFromStored, STORED_SETTINGS_JSON } from "../settings/read-settings";
import { SIGNED_REQUEST_WINDOW_MS } from "./signed-request";

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** Purge about one nonce in this many claims: old nonces are useless once outside the window. */
const PURGE_EVERY = 500;

/**
 * Counts the request against `limit` per agent per fixed window (past it: 429 `rate_limited` with Retry-After, and
 * the nonce stays unclaimed, so the same signed request can be retried after the wait), then claims the nonce (a
 * reuse is 409 `nonce_replay`). Returns the settings for the rest of the request.
 */
export async function admitSignedRequest(db: DbClient, agentPubkey: string, nonce: string, limit: number, now = Date.now()): Promise<Settings> {
  const windowStart = new Date(now - (now % RATE_LIMIT_WINDOW_MS));
  const rows = await db.$queryRaw<{ count: number; claimed: bigint; settings: Record<string, string> | null }[]>`
    WITH counted AS (
      INSERT INTO rate_limit_windows (agent_pubkey, window_start, count) VALUES (${agentPubkey}, ${windowStart}, 1)
      ON CONFLICT (agent_pubkey) DO UPDATE SET
        count = CASE WHEN rate_limit_windows.window_start = EXCLUDED.window_start THEN rate_limit_windows.count + 1 ELSE 1 END,
        window_start = EXCLUDED.window_start
      RETURNING count
    ), claimed AS (
      INSERT INTO request_nonces (agent_pubkey, nonce) SELECT ${agentPubkey}, ${nonce} FROM counted WHERE count <= ${limit}
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count FROM counted) AS count, (SELECT count(*) FROM claimed) AS claimed, ${STORED_SETTINGS_JSON} AS settings`;
  const row = rows[0]!;
  if (Number(row.count) > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + RATE_LIMIT_WINDOW_MS - now) / 1000));
    throw new AppError("rate_limited", `at most ${limit} signed requests per minute`, { retry_after_s: retryAfter }, { "Retry-After": String(retryAfter) });
  }
  if (Number(row.claimed) !== 1) throw new AppError("nonce_replay", "this nonce was already used by this agent");
  if (Math.random() < 1 / PURGE_EVERY) {
    // A nonce older than twice the window can never be replayed into an accepted request.
    await db.requestNonce.deleteMany({ where: { createdAt: { lt: new Date(Date.now() - 2 * SIGNED_REQUEST_WINDOW_MS) } } }).catch(() => undefined);
  }
  return settingsFromStored(row.settings);
}
