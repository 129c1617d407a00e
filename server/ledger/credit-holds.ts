// Prepaid spending (issue #4): before the upstream call, a hold moves the worst-case cost out of the balance; after
// it, capture keeps the actual cost and returns the rest, or release returns it all. Each step's money is one
// statement or transaction with its ledger entries, so the ledger sum equals the balance at every moment, holds
// included.
import { randomUUID } from "node:crypto";
import type { DbClient } from "../db";
import type { Receipt } from "../receipts/receipt-types";
import { attachReceipt } from "./record-inference";

export type HoldStatus = "held" | "captured" | "released";

export type PlaceHoldOutcome = { ok: true; holdId: string; balanceUnits: bigint } | { ok: false; balanceUnits: bigint };

/**
 * Holds `units` of the agent's balance on `network`. The conditional update is the whole concurrency story: a balance
 * that covers N holds admits exactly N, and can never go below zero.
 */
export async function placeHold(db: DbClient, agentPubkey: string, network: string, units: bigint): Promise<PlaceHoldOutcome> {
  const holdId = randomUUID();
  // One atomic statement, one round trip (issue #7's profile: queries per money step): debit only if the balance
  // covers it, and write the hold and its ledger entry from the same debited row (none when it did not cover it).
  const rows = await db.$queryRaw<{ units: bigint }[]>`
    WITH debited AS (
      UPDATE balances SET units = units - ${units}, updated_at = now()
      WHERE agent_pubkey = ${agentPubkey} AND network = ${network} AND units >= ${units}
      RETURNING units
    ), held AS (
      INSERT INTO credit_holds (id, agent_pubkey, network, units, status)
      SELECT ${holdId}::uuid, ${agentPubkey}, ${network}, ${units}, ${"held" satisfies HoldStatus} FROM debited
    ), logged AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT ${agentPubkey}, ${network}, 'hold', ${-units}, ${holdId}::uuid FROM debited
    )
    SELECT units FROM debited`;
  if (rows.length === 0) {
    const current = await db.balance.findUnique({ where: { agentPubkey_network: { agentPubkey, network } } });
    return { ok: false as const, balanceUnits: current?.units ?? 0n };
  }
  return { ok: true as const, holdId, balanceUnits: BigInt(rows[0]!.units) };
}

/** Returns the whole hold (upstream failure). Idempotent: only a `held` hold is released. */
export async function releaseHold(db: DbClient, holdId: string): Promise<bigint | null> {
  return db.$transaction(async (tx) => {
    const hold = await settleHoldRow(tx, holdId, "released");
    if (!hold) return null;
    await tx.ledgerEntry.create({ data: { agentPubkey: hold.agentPubkey, network: hold.network, kind: "hold_release", units: hold.units, inferenceId: holdId } });
    const row = await tx.balance.update({
      where: { agentPubkey_network: { agentPubkey: hold.agentPubkey, network: hold.network } },
      data: { units: { increment: hold.units } },
    });
    return row.units;
  });
}

export interface CaptureFacts {
  holdId: string;
  costUnits: bigint;
  model: string;
  upstream: string;
  latencyMs: number;
  /**
   * Signs the receipt once the points total is known; the inference id is the hold id. Null for a stream the client
   * left mid-way: the call is logged `aborted`, charged what it cost, and has no receipt.
   */
  signReceipt: ((facts: { inferenceId: string; pointsTotal: number; timestampMs: number }) => Receipt) | null;
}

/**
 * Keeps the actual cost, capped at the hold (`max_cost_usdc` is a hard cap), returns the rest, counts the point and
 * logs the call, in ONE statement; then signs the receipt with the new points total and stores it on the log row.
 */
export async function captureHold(db: DbClient, facts: CaptureFacts): Promise<{ receipt: Receipt | null; balanceUnits: bigint; chargedUnits: bigint }> {
  // A stream the client left is logged `aborted`: charged, but no receipt and no point.
  const status = facts.signReceipt ? "served" : "aborted";
  const rows = await db.$queryRaw<{ id: string; agent_pubkey: string; network: string; charged: bigint; balance: bigint; points: number }[]>`
    WITH hold AS (
      UPDATE credit_holds SET status = ${"captured" satisfies HoldStatus}, settled_at = now()
      WHERE id = ${facts.holdId}::uuid AND status = 'held'
      RETURNING id, agent_pubkey, network, units
    ), amounts AS (
      SELECT id, agent_pubkey, network, LEAST(units, ${facts.costUnits}::bigint) AS charged, units - LEAST(units, ${facts.costUnits}::bigint) AS refund FROM hold
    ), released AS (
      INSERT INTO ledger_entries (agent_pubkey, network, kind, units, inference_id)
      SELECT agent_pubkey, network, 'hold_release', refund, id FROM amounts WHERE refund > 0
    ), balance AS (
      UPDATE balances b SET units = b.units + a.refund, updated_at = now() FROM amounts a
      WHERE b.agent_pubkey = a.agent_pubkey AND b.network = a.network
      RETURNING b.units
    ), points AS (
      INSERT INTO agents (pubkey, points_total) SELECT agent_pubkey, 1 FROM amounts WHERE ${status === "served"}::boolean
      ON CONFLICT (pubkey) DO UPDATE SET points_total = agents.points_total + 1
      RETURNING points_total
    ), call AS (
      INSERT INTO inference_logs (id, agent_pubkey, network, route, model, upstream, cost_units, latency_ms, status)
      SELECT id, agent_pubkey, network, 'inference', ${facts.model}, ${facts.upstream}, charged, ${facts.latencyMs}::int, ${status} FROM amounts
    )
    SELECT a.id, a.agent_pubkey, a.network, a.charged, (SELECT units FROM balance) AS balance, (SELECT points_total FROM points) AS points
    FROM amounts a`;
  const hold = rows[0];
  if (!hold) throw new Error(`hold ${facts.holdId} is not held`);
  const balanceUnits = BigInt(hold.balance);
  if (!facts.signReceipt) return { receipt: null, balanceUnits, chargedUnits: BigInt(hold.charged) };
  const receipt = facts.signReceipt({ inferenceId: hold.id, pointsTotal: Number(hold.points), timestampMs: Date.now() });
  await attachReceipt(db, hold.id, receipt);
  return { receipt, balanceUnits, chargedUnits: BigInt(hold.charged) };
}

async function settleHoldRow(tx: Parameters<Parameters<DbClient["$transaction"]>[0]>[0], holdId: string, to: HoldStatus) {
  const rows = await tx.$queryRaw<{ agent_pubkey: string; network: string; units: bigint; id: string }[]>`
    UPDATE credit_holds SET status = ${to}, settled_at = now()
    WHERE id = ${holdId}::uuid AND status = 'held'
    RETURNING id, agent_pubkey, network, units`;
  const row = rows[0];
  return row ? { id: row.id, agentPubkey: row.agent_pubkey, network: row.network, units: BigInt(row.units) } : null;
}
