// Admitting a signed prepaid request in one database round trip (each extra query adds latency to every request):
// count it against its client IP's limit, admit only an agent with credit on the request's network, count it in the
// agent's rate-limit window, claim its nonce, read the operator settings, and (for the call) take its hold. Kept in
// the database, so the limits and replay protection hold across restarts and instances.
import "server-only";
import { Prisma, type DbClient } from "../db";
import { AppError } from "../errors";
import { countShardedIpRequest, refuseOverIpLimit } from "../http/ip-rate-limit";
import type { Settings } from "../settings/setting-definitions";
import {
  settingsFromStored,
  STORED_SETTINGS_JSON,
  storedSettingsAre,
  type SettingDefaultsSource,
  type StoredSettings,
} from "../settings/read-settings";
import {
  balanceExpression,
  pointsExpression,
  reserveCtes,
  reserveOutcome,
  type HoldRequest,
  type HoldStatus,
  type ReserveOutcome,
} from "../ledger/credit-holds";
import { hotQuery } from "../db/hot-query";
import type { Logger } from "../log";
import type { Clock } from "../clock";

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Who asks, under which limits, on which network's credit. */
export interface AdmissionRequest {
  agentPubkey: string;
  nonce: string;
  /** Signed requests per agent per window. */
  limit: number;
  /** CAIP-2 id of the network whose credit admits the request. */
  network: string;
  /** The client IP's hash and its limit per window (bucket `prepaid_inference`); null: not counted per IP. */
  ip: { hash: string; limit: number } | null;
}

/**
 * Counts the request against its IP's limit, then (for an agent with credit on the network) against the agent's
 * limit, then claims the nonce. Past either limit: 429 `rate_limited` with Retry-After, and the nonce stays unclaimed,
 * so the same signed request can be retried after the wait; a reused nonce: 409 `nonce_replay`; an agent without
 * credit on the network: 402 `insufficient_credits`, nothing written for it. Returns the settings. The windows are
 * the runtime's clock's; an invalid stored setting is logged to its logger.
 */
export async function admitSignedRequest(
  db: DbClient,
  cfg: SettingDefaultsSource,
  request: AdmissionRequest,
  rt: { clock: Clock; log: Logger },
): Promise<Settings> {
  const admitted = await admitAndHold(db, cfg, request, null, rt);
  if (!admitted.ok)
    throw new AppError("insufficient_credits", "this agent has no credit on this network", { balance_usdc: "0" });
  return admitted.settings;
}

/**
 * A hold to take in the admission's own statement: `request` was worked out (network, model, worst-case cost) from
 * `settings`, so it is taken only when the stored settings are exactly those, as the statement reads them.
 */
export interface HoldWithAdmission {
  request: HoldRequest;
  settings: StoredSettings;
}

export type Admitted =
  | {
      ok: true;
      settings: Settings;
      /** The stored settings the statement read: what the next request can work its hold out from. */
      stored: StoredSettings;
      /** Null when no hold was asked for, or the settings were not the ones it was worked out from: reserve it now. */
      hold: ReserveOutcome | null;
      /** The agent's points as the statement read them (0 for an agent with none yet). */
      points: number;
    }
  /**
   * The agent had neither spendable nor held credit on the network: nothing was counted or claimed for it, so the
   * request must not go on to a hold (a retry of the same signed request could then be served twice).
   */
  | { ok: false; reason: "no_credit"; settings: Settings; stored: StoredSettings };

/**
 * admitSignedRequest, and the call's hold in the same statement when the request was admitted (and its nonce claimed)
 * and the settings are those the hold was worked out from. A limit or a replay throws as admitSignedRequest does; an
 * agent without credit on the network is `{ ok: false }`.
 */
export async function admitAndHold(
  db: DbClient,
  cfg: SettingDefaultsSource,
  request: AdmissionRequest,
  hold: HoldWithAdmission | null,
  rt: { clock: Clock; log: Logger },
): Promise<Admitted> {
  const { agentPubkey, nonce, limit, network, ip } = request;
  const now = rt.clock.now();
  const windowStart = new Date(now - (now % RATE_LIMIT_WINDOW_MS));
  const rows = await hotQuery<{
    ip_count: number;
    credited: bigint;
    count: number | null;
    claimed: bigint;
    settings: StoredSettings;
    hold_asked: bigint;
    debited: bigint | null;
    balance: bigint | null;
    points: number;
  }>(
    db,
    Prisma.sql`
    WITH ip_counted AS (
      ${ip ? countShardedIpRequest("prepaid_inference", ip.hash, agentPubkey, ip.limit, now) : Prisma.sql`SELECT 0 AS count`}
    ), credited AS (
      -- SECURITY: an agent key without credit on the network writes no row (fresh keys cost nothing to make). Held
      -- credit counts too, so a duplicate of a call whose hold took the whole balance still meets its claimed nonce
      -- (409); duplicates that both pass this check are ordered by the nonce's unique key.
      SELECT 1 WHERE (SELECT count FROM ip_counted) <= ${ip?.limit ?? 0}
        AND (EXISTS (SELECT 1 FROM balances WHERE agent_pubkey = ${agentPubkey} AND network = ${network} AND units > 0)
          OR EXISTS (SELECT 1 FROM credit_holds WHERE agent_pubkey = ${agentPubkey} AND network = ${network} AND status = ${"held" satisfies HoldStatus}))
    ), counted AS (
      INSERT INTO rate_limit_windows (agent_pubkey, window_start, count) SELECT ${agentPubkey}, ${windowStart}, 1 FROM credited
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
      SELECT 1 FROM claimed WHERE ${hold !== null} AND ${storedSettingsAre(hold?.settings ?? null, Prisma.sql`(SELECT settings FROM stored)`)}
    ), ${reserveCtes(hold?.request ?? NO_HOLD, Prisma.sql`EXISTS (SELECT 1 FROM hold_asked)`)}
    SELECT (SELECT count FROM ip_counted) AS ip_count, (SELECT count(*) FROM credited) AS credited, (SELECT count FROM counted) AS count,
           (SELECT count(*) FROM claimed) AS claimed, (SELECT settings FROM stored) AS settings,
           (SELECT count(*) FROM hold_asked) AS hold_asked, (SELECT units FROM debited) AS debited, ${balanceExpression(hold?.request ?? NO_HOLD)} AS balance,
           ${pointsExpression(agentPubkey)} AS points`,
  );
  const row = rows[0]!;
  if (ip) refuseOverIpLimit(Number(row.ip_count), ip.limit, now);
  const settings = settingsFromStored(row.settings, cfg, rt.log);
  if (Number(row.credited) !== 1) return { ok: false, reason: "no_credit", settings, stored: row.settings };
  if (Number(row.count) > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + RATE_LIMIT_WINDOW_MS - now) / 1000));
    throw new AppError(
      "rate_limited",
      `at most ${limit} signed requests per minute`,
      { retry_after_s: retryAfter },
      { "Retry-After": String(retryAfter) },
    );
  }
  if (Number(row.claimed) !== 1) throw new AppError("nonce_replay", "this nonce was already used by this agent");
  return {
    ok: true,
    settings,
    stored: row.settings,
    hold: hold && Number(row.hold_asked) === 1 ? reserveOutcome(hold.request, row) : null,
    points: Number(row.points),
  };
}

/** The CTEs' parameters when no hold is asked for: they never run (`hold_asked` is empty). */
const NO_HOLD: HoldRequest = {
  holdId: "00000000-0000-0000-0000-000000000000",
  agentPubkey: "",
  network: "",
  units: 0n,
  leaseMs: 0,
};
