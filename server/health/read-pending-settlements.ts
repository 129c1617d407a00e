// Settlements an operator should look at: payments `pending` (broadcast, their confirmation not yet seen; a retry or the
// sweeper resolves them from the chain), payments still `claimed` after their lease ran out (their server died while
// settling; the client's retry, or nobody, resolves them) and payments `unserved` (settled, the call not yet served).
import "server-only";
import type { DbClient } from "../db";
import { formatUnitsAsUsdc } from "../verify";
import { STATE } from "../ledger/payment-states";

/** The states the list shows. */
export const LISTED_STATES = [STATE.pending, STATE.claimed, STATE.unserved] as const;

function labelOf(p: { status: string; txSignature: string | null; failureReason: string | null }): string {
  if (p.status === STATE.pending) return `broadcast${p.txSignature ? ` (${p.txSignature.slice(0, 12)}…)` : ""}`;
  if (p.status === STATE.claimed) return "claimed, lease ran out";
  return `unserved${p.failureReason ? ` (${p.failureReason})` : ""}`;
}

/** How many of each kind the dashboard lists; the counts are exact. */
const PENDING_LIST_LIMIT = 50;

interface PendingPayment {
  id: string;
  network: string;
  payer: string;
  amountUsdc: string;
  status: (typeof LISTED_STATES)[number];
  /** What the operator reads for it: broadcast (with its transaction), a claim whose lease ran out, or unserved. */
  label: string;
  /** The broadcast transaction, for a pending payment. */
  txSignature: string | null;
  failureReason: string | null;
  updatedAt: string;
}

export interface PendingSettlements {
  broadcast: { count: number; items: PendingPayment[] };
  staleClaims: { count: number; items: PendingPayment[] };
  unserved: { count: number; items: PendingPayment[] };
}

/** Broadcast (pending) payments, stale claims (no update for `leaseMs` before `now`) and unserved payments, oldest first. */
export async function readPendingSettlements(db: DbClient, leaseMs: number, now: number): Promise<PendingSettlements> {
  const stale = { status: STATE.claimed, updatedAt: { lt: new Date(now - leaseMs) } };
  const unserved = { status: STATE.unserved };
  const broadcast = { status: STATE.pending };
  const select = {
    id: true,
    network: true,
    payer: true,
    units: true,
    status: true,
    failureReason: true,
    txSignature: true,
    updatedAt: true,
  } as const;
  const [broadcastCount, broadcastRows, staleCount, staleRows, unservedCount, unservedRows] = await Promise.all([
    db.payment.count({ where: broadcast }),
    db.payment.findMany({ where: broadcast, select, orderBy: { updatedAt: "asc" }, take: PENDING_LIST_LIMIT }),
    db.payment.count({ where: stale }),
    db.payment.findMany({ where: stale, select, orderBy: { updatedAt: "asc" }, take: PENDING_LIST_LIMIT }),
    db.payment.count({ where: unserved }),
    db.payment.findMany({ where: unserved, select, orderBy: { updatedAt: "asc" }, take: PENDING_LIST_LIMIT }),
  ]);
  const item = (p: (typeof staleRows)[number]): PendingPayment => ({
    id: p.id,
    network: p.network,
    payer: p.payer,
    amountUsdc: formatUnitsAsUsdc(p.units),
    status: p.status as PendingPayment["status"],
    label: labelOf(p),
    failureReason: p.failureReason,
    txSignature: p.txSignature,
    updatedAt: p.updatedAt.toISOString(),
  });
  return {
    broadcast: { count: broadcastCount, items: broadcastRows.map(item) },
    staleClaims: { count: staleCount, items: staleRows.map(item) },
    unserved: { count: unservedCount, items: unservedRows.map(item) },
  };
}
