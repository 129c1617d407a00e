// How long the rows of each table are kept, who deletes them, and why: the retention table of docs/deploy.md is
// rendered from this, and a test fails when a table of prisma/schema.prisma is missing here. The purges use the same
// durations. Nothing here deletes a row an operator would need to settle a dispute: the ledger, the payments, the
// receipts and the log are kept for as long as the database lives.
import { RELAY_KEEP_BELOW_MINED } from "../facilitator/evm-relay-ledger";
import { RATE_LIMIT_WINDOW_MS } from "../prepaid/admit-signed-request";
import { SIGNED_REQUEST_WINDOW_MS } from "../prepaid/signed-request";
import { IP_RATE_LIMIT_WINDOW_MS } from "../http/ip-rate-limit";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * How long an expired challenge is kept. A challenge is refused once expired, and a login link whose expiry passed is
 * refused before its nonce is looked up, so deleting after expiry is safe; the hour covers clock skew between instances.
 */
export const EXPIRED_CHALLENGE_GRACE_MS = HOUR_MS;
/** How long the dashboard's hourly failure counts are kept. */
export const FAILURE_COUNT_RETENTION_MS = 90 * DAY_MS;
/** A signed request is refused outside its timestamp's window, so a nonce older than twice it can never be replayed. */
export const NONCE_RETENTION_MS = 2 * SIGNED_REQUEST_WINDOW_MS;
/** A counting window that started two windows ago has ended: its next request starts a new count anyway. */
export const AGENT_WINDOW_RETENTION_MS = 2 * RATE_LIMIT_WINDOW_MS;
export const IP_WINDOW_RETENTION_MS = 2 * IP_RATE_LIMIT_WINDOW_MS;

/** `ms` as the largest whole unit that divides it ("2 min", "90 days"). */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ["days", DAY_MS],
    ["h", HOUR_MS],
    ["min", MINUTE_MS],
    ["s", 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit === "days" && ms === DAY_MS ? "day" : unit}`;
  }
  return `${ms} ms`;
}

export interface TableRetention {
  /** How long a row stays, from when. */
  kept: string;
  /** Why that long, and who deletes it (nobody, the background purge, the sweeper). */
  why: string;
}

const FOREVER = "as long as the database";

/** Every table, by its name in PostgreSQL. */
export const TABLE_RETENTION: Readonly<Record<string, TableRetention>> = {
  settings: { kept: FOREVER, why: "the operator settings in force (one row per setting)" },
  setting_audits: { kept: FOREVER, why: "who changed which setting, and when (secrets as `(set)` / `(replaced)`)" },
  agents: { kept: FOREVER, why: "each paying key's served-call count (one row per key)" },
  balances: { kept: FOREVER, why: "the books: each balance equals the sum of its ledger entries" },
  ledger_entries: { kept: FOREVER, why: "the books: append-only; every credit and debit with its payment or call" },
  payments: {
    kept: FOREVER,
    why: "replay protection (a transaction or authorization once seen is refused again, forever) and the audit trail; a served call's kept answer (`answer`) is cleared by the sweeper after PAID_ANSWER_RETENTION_HOURS",
  },
  payment_transitions: { kept: FOREVER, why: "the allowed moves between payment states (fixed data)" },
  inference_logs: {
    kept: FOREVER,
    why: "each served call's signed receipt (never its prompt or answer), behind /r/<id> and the log",
  },
  credit_holds: { kept: FOREVER, why: "each call's hold and what it charged: the ledger's explanation" },
  grants: { kept: FOREVER, why: "once per key and at most N per hashed IP: a deleted grant could be claimed again" },
  operator_session_generations: {
    kept: FOREVER,
    why: "sign-out invalidates older sessions (one row per operator key)",
  },
  settlement_lanes: { kept: FOREVER, why: "one settlement in flight per paying account (one small row per account)" },
  evm_relays: {
    kept: `until the relayer's mined nonce count passes the row's nonce by ${RELAY_KEEP_BELOW_MINED}`,
    why: "a signed relay transaction is broadcast again until it is mined deep enough that a reorg cannot undo it; deleted by the relayer",
  },
  log_staging: {
    kept: "until the sequencer logs the receipt (seconds)",
    why: "receipts waiting for the log; deleted by the sequencer",
  },
  log_entries: { kept: FOREVER, why: "the receipt log's leaves: deleting one breaks every proof" },
  log_hashes: { kept: FOREVER, why: "the receipt log's tiles" },
  log_checkpoints: {
    kept: FOREVER,
    why: "every checkpoint the log signed: monitors ask for consistency from any of them",
  },
  log_cosignatures: { kept: FOREVER, why: "witnesses' cosignatures of those checkpoints" },
  request_nonces: {
    kept: `${formatDuration(NONCE_RETENTION_MS)} from the request`,
    why: "a signed request's nonce can only be replayed within its window; deleted by the background purge",
  },
  rate_limit_windows: {
    kept: `${formatDuration(AGENT_WINDOW_RETENTION_MS)} from the window's start`,
    why: "per-key request counts; deleted by the background purge",
  },
  ip_rate_limit_windows: {
    kept: `${formatDuration(IP_WINDOW_RETENTION_MS)} from the window's start`,
    why: "per-IP request counts (HMAC of the IP); deleted by the background purge",
  },
  grant_challenges: {
    kept: `${formatDuration(EXPIRED_CHALLENGE_GRACE_MS)} past expiry`,
    why: "single-use, five-minute challenges; deleted by the background purge",
  },
  operator_challenges: {
    kept: `${formatDuration(EXPIRED_CHALLENGE_GRACE_MS)} past expiry`,
    why: "sign-in challenges and login-link nonces; deleted by the background purge",
  },
  payment_failure_counts: {
    kept: `${formatDuration(FAILURE_COUNT_RETENTION_MS)} from the hour counted`,
    why: "the dashboard's failure chart; deleted by the background purge",
  },
};

/** The retention table as Markdown (docs/deploy.md). */
export function retentionTable(): string {
  const rows = Object.entries(TABLE_RETENTION).map(
    ([table, r]) => `| \`${table}\` | ${r.kept} | ${r.why.replaceAll("|", "\\|")} |`,
  );
  return ["| table | kept | why, and who deletes it |", "|---|---|---|", ...rows].join("\n");
}
