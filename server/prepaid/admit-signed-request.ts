// Admitting a signed prepaid request in one database round trip (each extra query adds latency to every request):
// count it in the agent's rate-limit window, claim its nonce, read the operator settings, and (for the call) take its
// hold. Kept in the database, so the limit and replay protection hold across restarts and instances.
import "server-only";
import { Prisma, type DbClient } from "../db";
import { AppError } from "../errors";
import type { Settings } from "../settings/setting-definitions";
import { settingsFromStored, STORED_SETTINGS_JSON, storedSettingsAre, type StoredSettings } from "../settings/read-settings";
import { balanceExpression, pointsExpression, reserveCtes, reserveOutcome, type HoldRequest, type ReserveOutcome } from "../ledger/credit-holds";
import { SIGNED_REQUEST_WINDOW_MS } from "./signed-request";
import { hotQuery } from "../db/hot-query";

export const RATE_LIMIT_WINDOW_MS = 60_000;
/** Purge about one nonce in this many claims: old nonces are useless once outside the window. */
const PURGE_EVERY = 500;

/**
 * Counts the request against `limit` per agent per fixed window (past it: 429 `rate_limited` with Retry-After, and
 * the nonce stays unclaimed, so the same signed request can be retried after the wait), then claims the nonce (a
 * reuse is 409 `nonce_replay`). Returns the settings for the rest of the request.
 */
export async function admitSignedRequest(db: DbClient, agentPubkey: string, nonce: string, limit: number, now = Date.now()): Promise<Settings> {
  return (await admitAndHold(db, agentPubkey, nonce, limit, null, now)).settings;
}

/**
 * A hold to take in the admission's own statement: `request` was worked out (network, model, worst-case cost) from
 * `settings`, so it is taken only when the stored settings are exactly those, as the statement reads them.
 */
export interface HoldWithAdmission {
  request: HoldRequest;
  settings: StoredSettings;
}

export interface Admitted {
  settings: Settings;
  /** The stored settings the statement read: what the next request can work its hold out from. */
  stored: StoredSettings;
  /** Null when no hold was asked for, or the settings were not the ones it was worked out from: reserve it now. */
  hold: ReserveOutcome | null;
  /** The agent's points as the statement read them (0 for an agent with none yet). */
  points: number;
}

/**
 * admitSignedRequest, and the call's hold in the same statement when the request was admitted (and its nonce claimed)
 * and the settings are those the hold was worked out from. A refusal throws as admitSignedRequest does, with no hold.
 */
export async function admitAndHold(db: DbClient, agentPubkey: string, nonce: string, limit: number, hold: HoldWithAdmission | null, now = Date.now()): Promise<Admitted> {
  const windowStart = new Date(now - (now % RATE_LIMIT_WINDOW_MS));
  const rows = await hotQuery<{ count: number; claimed: bigint; settings: StoredSettings; hold_asked: bigint; debited: bigint | null; balance: bigint | null; points: number }>(db, Prisma.sql`
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
    ), stored AS (
      SELECT ${STORED_SETTINGS_JSON} AS settings
    ), hold_asked AS (
      SELECT 1 FROM claimed WHERE ${hold !== null} AND ${storedSettingsAre(hold?.settings ?? null)}
    ), ${reserveCtes(hold?.request ?? NO_HOLD, Prisma.sql`EXISTS (SELECT 1 FROM hold_asked)`)}
    SELECT (SELECT count FROM counted) AS count, (SELECT count(*) FROM claimed) AS claimed, (SELECT settings FROM stored) AS settings,
           (SELECT count(*) FROM hold_asked) AS hold_asked, (SELECT units FROM debited) AS debited, ${balanceExpression(hold?.request ?? NO_HOLD)} AS balance,
           ${pointsExpression(agentPubkey)} AS points`);
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
  const settings = settingsFromStored(row.settings);
  return { settings, stored: row.settings, hold: hold && Number(row.hold_asked) === 1 ? reserveOutcome(hold.request, row) : null, points: Number(row.points) };
}

/** The CTEs' parameters when no hold is asked for: they never run (`hold_asked` is empty). */
const NO_HOLD: HoldRequest = { holdId: "00000000-0000-0000-0000-000000000000", agentPubkey: "", network: "", units: 0n, leaseMs: 0 };
