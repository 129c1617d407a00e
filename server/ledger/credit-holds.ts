// Holds: every call, paid or prepaid, is served from one. Reserve moves the call's worst-case cost out of the spendable
// balance; capture debits exactly the cost and returns the rest; release returns it all. Each step is one statement
// with its ledger entries, so the ledger sum equals the balance at every moment, holds included. A paid call's hold is
// written by the settlement credit (credit-agent.ts) and shares its payment's id: while its payment is unserved it
// stays reserved for that payment's retry, and it is returned (refunded to the payer's credit) only when the database
// refuses the call's record for good.
import "server-only";
import { randomUUID } from "node:crypto";
import { Prisma, type DbClient, type DbTransaction } from "../db";
import { logEvent, type Logger } from "../log";
import { hotQuery } from "../db/hot-query";
import { refundedPaymentStatement, renewedPaymentStatement, servedPaymentStatement } from "./payment-row-statements";
import { fromStates, movesOf } from "./payment-transition";

export type HoldStatus = "held" | "captured" | "released";

// A hold's lease is written (reserve, renewLease) and judged (releaseExpiredHolds) with the database's now(), never a
// server's clock: the instances that renew a lease and the ones that sweep expired leases must agree on one clock, or
// a server whose clock runs ahead would release a hold another one is still serving (its answer then goes out free,
// its capture finding no hold). The database's clock is the one they all share. Tests expire a lease by writing
// lease_expires_at, not by moving a clock.

/** A paid call's payment as its hold is captured: the call was served. */
const CAPTURED = movesOf({ type: "served" });
/** A paid call's payment as its hold is returned: the database refused the call's record for good. */
const REFUNDED = movesOf({ type: "not-recorded" });

export type ReserveOutcome =
  { ok: true; holdId: string; balanceUnits: bigint; points?: number } | { ok: false; balanceUnits: bigint };

export interface HoldRequest {
  holdId: string;
  agentPubkey: string;
  network: string;
  units: bigint;
  leaseMs: number;
}

/**
 * Holds `units` of the agent's spendable balance on `network` for one prepaid call, with a lease its server renews
 * while it serves. The conditional update is the whole concurrency story: a balance that covers N holds admits exactly
 * N, and never goes below zero.
 */
export async function reserveCredit(
  db: DbClient,
  agentPubkey: string,
  network: string,
  units: bigint,
  leaseMs: number,
): Promise<ReserveOutcome> {
  const hold = { holdId: randomUUID(), agentPubkey, network, units, leaseMs };
  const rows = await db.$queryRaw<{ debited: bigint | null; balance: bigint | null; points: number }[]>`
    WITH ${reserveCtes(hold, Prisma.sql`TRUE`)}
    SELECT (SELECT units FROM debited) AS debited, ${balanceExpression(hold)} AS balance, ${pointsExpression(agentPubkey)} AS points`;
  const outcome = reserveOutcome(hold, rows[0]!);
  return outcome.ok ? { ...outcome, points: Number(rows[0]!.points) } : outcome;
}

/**
 * The reserve as CTEs (`debited`, `held`, `logged`) for a caller's own statement, run only when `when` (an SQL
 * condition) holds. Read the outcome with `reserveOutcome` from `(SELECT units FROM debited) AS debited` and
 * `balanceExpression(hold) AS balance`.
 */
export function reserveCtes(hold: HoldRequest, when: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`debited AS (
      UPDATE balances SET units = units - ${hold.units}, updated_at = now()
      WHERE agent_pubkey = ${hold.agentPubkey} AND network = ${hold.network} AND units >= ${hold.units} AND ${when}
      RETURNING units
    ), held AS (
      INSERT INTO credit_holds (id, agent_pubkey, network, units, status, lease_expires_at)
      SELECT ${hold.holdId}::uuid, ${hold.agentPubkey}, ${hold.network}, ${hold.units}, ${"held" satisfies HoldStatus},
             now() + make_interval(secs => ${hold.leaseMs}::double precision / 1000)
      FROM debited
    ), logged AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT ${hold.agentPubkey}, ${hold.network}, 'hold', ${-hold.units}, ${hold.holdId}::uuid FROM debited
    )`;
}

/** The agent's points as the statement began (0 for an agent with none yet): what a call's receipt will sign plus one. */
export function pointsExpression(agentPubkey: string): Prisma.Sql {
  return Prisma.sql`COALESCE((SELECT points_total FROM agents WHERE pubkey = ${agentPubkey}), 0)`;
}

/** The agent's spendable balance as the statement began (what a refused reserve reports). */
export function balanceExpression(hold: Pick<HoldRequest, "agentPubkey" | "network">): Prisma.Sql {
  return Prisma.sql`(SELECT units FROM balances WHERE agent_pubkey = ${hold.agentPubkey} AND network = ${hold.network})`;
}

export function reserveOutcome(
  hold: HoldRequest,
  row: { debited: bigint | string | null; balance: bigint | string | null },
): ReserveOutcome {
  if (row.debited === null) return { ok: false, balanceUnits: BigInt(row.balance ?? 0n) };
  return { ok: true, holdId: hold.holdId, balanceUnits: BigInt(row.debited) };
}

export interface CaptureFacts {
  holdId: string;
  /** The hold's agent: its points row is locked first, as every capture and undo of its calls does. */
  agentPubkey: string;
  /** What the upstream says the call cost. */
  costUnits: bigint;
  model: string;
  upstream: string;
  latencyMs: number;
  /** `served`: the whole answer went out (a point, and a receipt); `aborted`: the client left mid-stream. */
  outcome: "served" | "aborted";
  /**
   * A served call's receipt, signed before the capture with `points_total` = `pointsBefore` + 1: the statement stores
   * it on the log row and stages it for the public receipt log, and captures at all only while the agent's points are
   * `pointsBefore`. Capture and receipt are then one commit: no crash between them can leave a served call without
   * its receipt.
   */
  receipt?: { json: string; pointsBefore: number };
  /**
   * A served paid call's kept answer (kept-answer.ts), stored on its payment by the capture's statement: the payer's
   * repeat of the same request gets it again instead of a second service.
   */
  answer?: string;
}

export type CaptureOutcome =
  | {
      ok: true;
      /** The inference id: the hold's. */
      inferenceId: string;
      chargedUnits: bigint;
      /** The cost ran past the hold: charged the hold, and reconcile reports the difference. */
      overrunUnits: bigint;
      balanceUnits: bigint;
      /** The agent's points after this call (unchanged for an aborted one). */
      pointsTotal: number;
      /** Set on the paid route: the settled payment this call used. */
      payment: { id: string; txSignature: string; units: bigint } | null;
      /** The facts' receipt was stored and staged by this statement. */
      receiptStored: boolean;
    }
  /** The hold was no longer held: captured by another server that took over, or released. Nothing was written. */
  | { ok: false; reason: "hold_not_held" }
  /** The agent's points were not the receipt's `pointsBefore`: nothing was written; sign again with `pointsNow`. */
  | { ok: false; reason: "points_moved"; pointsNow: number | null };

/**
 * Captures the hold: debits exactly the cost (never more than the hold), returns the rest, marks its payment served,
 * counts the point and writes the log row (with the facts' receipt, staged for the public log), in ONE statement. A
 * served call's facts carry its receipt, so capture and receipt are one commit; an aborted call has none.
 */
export async function captureHold(
  db: DbClient | DbTransaction,
  facts: CaptureFacts,
  log: Logger,
): Promise<CaptureOutcome> {
  const served = facts.outcome === "served";
  const gate = facts.receipt ?? null;
  const rows = await hotQuery<{
    id: string | null;
    units: bigint | null;
    charged: bigint | null;
    balance: bigint | null;
    points: number | null;
    points_now: number | null;
    payment_id: string | null;
    tx_signature: string | null;
    price_units: bigint | null;
  }>(
    db,
    Prisma.sql`
    WITH cur AS (
      -- SECURITY: the agent's points row is locked first (every capture and undo takes it before its hold and balance,
      -- so two of them never wait on each other crosswise), and read as the lock found it.
      SELECT points_total FROM agents WHERE pubkey = ${facts.agentPubkey} FOR UPDATE
    ), hold AS (
      UPDATE credit_holds SET status = ${"captured" satisfies HoldStatus}, settled_at = now(), charged_units = LEAST(units, ${facts.costUnits}::bigint)
      WHERE id = ${facts.holdId}::uuid AND status = 'held' AND agent_pubkey = ${facts.agentPubkey}
        AND ${gate ? Prisma.sql`EXISTS (SELECT 1 FROM cur WHERE points_total = ${gate.pointsBefore})` : Prisma.sql`(SELECT count(*) FROM cur) >= 0`}
      RETURNING id, agent_pubkey, network, units, payment_id, charged_units
    ), payment AS (${servedPaymentStatement("hold", facts.answer ?? null, CAPTURED)}
    ), released AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT agent_pubkey, network, 'hold_release', units - charged_units, id FROM hold WHERE units > charged_units
    ), balance AS (
      UPDATE balances b SET units = b.units + (h.units - h.charged_units), updated_at = now() FROM hold h
      WHERE b.agent_pubkey = h.agent_pubkey AND b.network = h.network
      RETURNING b.units
    ), points AS (
      INSERT INTO agents (pubkey, points_total) SELECT agent_pubkey, CASE WHEN ${served}::boolean THEN 1 ELSE 0 END FROM hold
      ON CONFLICT (pubkey) DO UPDATE SET points_total = agents.points_total + EXCLUDED.points_total
      RETURNING points_total
    ), call AS (
      INSERT INTO inference_logs (id, agent_pubkey, network, route, model, upstream, payment_id, tx_signature, price_units, cost_units, upstream_cost_units, latency_ms, status, receipt)
      SELECT h.id, h.agent_pubkey, h.network, CASE WHEN h.payment_id IS NULL THEN 'inference' ELSE 'chat' END, ${facts.model}, ${facts.upstream},
             h.payment_id, (SELECT tx_signature FROM payment), (SELECT units FROM payment), h.charged_units, ${facts.costUnits}::bigint,
             ${facts.latencyMs}::int, ${facts.outcome}, ${gate ? Prisma.sql`${gate.json}::jsonb` : Prisma.sql`NULL::jsonb`}
      FROM hold h
    )${
      gate
        ? Prisma.sql`, staged AS (
      INSERT INTO log_staging (inference_id) SELECT id FROM hold
    )`
        : Prisma.empty
    }
    SELECT (SELECT id FROM hold) AS id, (SELECT units FROM hold) AS units, (SELECT charged_units FROM hold) AS charged,
           (SELECT units FROM balance) AS balance, (SELECT points_total FROM points) AS points, (SELECT points_total FROM cur) AS points_now,
           (SELECT id::text FROM payment) AS payment_id, (SELECT tx_signature FROM payment) AS tx_signature, (SELECT units FROM payment) AS price_units`,
  );
  const row = rows[0]!;
  if (row.id === null) {
    // Not captured: the receipt's points were stale (the hold still waits), or the hold is no longer held.
    if (gate && row.points_now !== gate.pointsBefore)
      return { ok: false, reason: "points_moved", pointsNow: row.points_now };
    return { ok: false, reason: "hold_not_held" };
  }
  const chargedUnits = BigInt(row.charged!);
  const overrunUnits = facts.costUnits - chargedUnits;
  if (overrunUnits > 0n) {
    logEvent(
      log,
      "ledger.cost_exceeds_hold",
      { inference_id: row.id, cost: facts.costUnits.toString(), hold: String(row.units) },
      "error",
    );
  }
  return {
    ok: true,
    inferenceId: row.id,
    chargedUnits,
    overrunUnits: overrunUnits > 0n ? overrunUnits : 0n,
    balanceUnits: BigInt(row.balance ?? 0n),
    pointsTotal: Number(row.points ?? 0),
    payment: row.payment_id
      ? { id: row.payment_id, txSignature: row.tx_signature!, units: BigInt(row.price_units!) }
      : null,
    receiptStored: gate !== null,
  };
}

/**
 * Returns a prepaid hold whole (the upstream failed, or its server died). Only a `held` hold with no payment is
 * released: a paid call's hold stays reserved for its payment's retry. Returns the new balance, or null when the hold
 * was not releasable.
 */
export async function releaseHold(db: DbClient, holdId: string): Promise<bigint | null> {
  return returnHold(db, holdId, null);
}

/**
 * Returns a paid call's hold whole to the payer's spendable credit and ends its payment `refunded`, in ONE statement:
 * the database refused the call's record for good, so it has no receipt and is not charged. Only a `held` hold of a
 * payment that is settled or serving moves. Returns the balance after, or null when nothing moved (the hold was
 * captured or returned already).
 */
export async function refundHold(db: DbClient, holdId: string, reason: string): Promise<bigint | null> {
  return returnHold(db, holdId, { reason });
}

/**
 * A held hold's units back to its agent's spendable balance, with their ledger entry, in one statement: a prepaid
 * hold (`refund` null), or a paid call's, whose payment the same statement ends `refunded`.
 */
async function returnHold(db: DbClient, holdId: string, refund: { reason: string } | null): Promise<bigint | null> {
  const whose = refund
    ? Prisma.sql`h.payment_id IS NOT NULL AND EXISTS (SELECT 1 FROM payments p WHERE p.id = h.payment_id AND p.status IN (${Prisma.join(fromStates(REFUNDED))}))`
    : Prisma.sql`h.payment_id IS NULL`;
  const rows = await hotQuery<{ balance: bigint | null }>(
    db,
    Prisma.sql`
    WITH hold AS (
      UPDATE credit_holds h SET status = ${"released" satisfies HoldStatus}, settled_at = now()
      WHERE h.id = ${holdId}::uuid AND h.status = 'held' AND ${whose}
      RETURNING h.id, h.agent_pubkey, h.network, h.units, h.payment_id
    )${refund ? Prisma.sql`, payment AS (${refundedPaymentStatement("hold", refund.reason, REFUNDED)})` : Prisma.empty}, logged AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT agent_pubkey, network, 'hold_release', units, id FROM hold
    ), balance AS (
      UPDATE balances b SET units = b.units + h.units, updated_at = now() FROM hold h
      WHERE b.agent_pubkey = h.agent_pubkey AND b.network = h.network
      RETURNING b.units
    )
    SELECT (SELECT units FROM balance) AS balance FROM hold`,
  );
  const row = rows[0];
  return row ? BigInt(row.balance ?? 0n) : null;
}

/**
 * Renews the lease of a hold being served (and of its payment, on the paid route, while the attempt serving it still
 * holds it), so no other server takes the call over while this one still serves it. False when the hold is no longer
 * held by anyone.
 */
export async function renewLease(
  db: DbClient,
  holdId: string,
  payment: { id: string; attempt: string | null } | null,
  leaseMs: number,
): Promise<boolean> {
  const rows = await hotQuery<{ held: bigint }>(
    db,
    Prisma.sql`
    WITH hold AS (
      UPDATE credit_holds SET lease_expires_at = now() + make_interval(secs => ${leaseMs}::double precision / 1000)
      WHERE id = ${holdId}::uuid AND status = 'held'
      RETURNING id
    ), payment AS (${renewedPaymentStatement(payment)}
    )
    SELECT count(*) AS held FROM hold`,
  );
  return Number(rows[0]?.held ?? 0) === 1;
}

/**
 * Releases prepaid holds whose lease ran out: their server died mid-call, and nobody else can finish it. Safe to run
 * on every instance at once (each hold is released by exactly one statement). Returns how many were released, each
 * logged to `log`.
 */
export async function releaseExpiredHolds(db: DbClient, log: Logger, limit = 100): Promise<number> {
  const stale = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM credit_holds WHERE status = 'held' AND payment_id IS NULL AND lease_expires_at < now() ORDER BY lease_expires_at LIMIT ${limit}`;
  let released = 0;
  for (const { id } of stale) {
    if ((await releaseHold(db, id)) !== null) {
      released++;
      logEvent(log, "ledger.expired_hold_released", { hold_id: id }, "warn");
    }
  }
  return released;
}
