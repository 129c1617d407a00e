// The dashboard's live figures, per network: paid calls and settlements, failures by reason (the last 90 days), USDC
// received against the upstream cost of every call served (the margin), prepaid calls, today's grants against the
// budget, and the same per hour for the charts (read-figure-series.ts).
import "server-only";
import type { DbClient } from "../db";
import { formatUnitsAsUsdc } from "../verify";
import { readFigureSeries, RECEIVED_STATUSES } from "./read-figure-series";
import type { Settings } from "../settings/setting-definitions";

interface NetworkFigures {
  network: string;
  paidCalls: number;
  settleOk: number;
  prepaidCalls: number;
  receivedUsdc: string;
  upstreamCostUsdc: string;
  marginUsdc: string;
  failures: { stage: string; reason: string; count: number }[];
}

/** All figures as of `nowMs` (epoch ms: today's grants are its UTC day's); `sinceHours` bounds the charts. */
export async function readFigures(db: DbClient, settings: Settings, nowMs: number, sinceHours = 24) {
  const now = new Date(nowMs);
  const day = now.toISOString().slice(0, 10);
  const [calls, payments, failures, grantsToday, series] = await Promise.all([
    db.inferenceLog.groupBy({ by: ["network", "route"], _count: { _all: true }, _sum: { costUnits: true } }),
    db.payment.groupBy({
      by: ["network"],
      where: { status: { in: [...RECEIVED_STATUSES] } },
      _count: { _all: true },
      _sum: { units: true },
    }),
    db.paymentFailureCount.groupBy({ by: ["network", "stage", "reason"], _sum: { count: true } }),
    db.grant.aggregate({ where: { day }, _sum: { units: true }, _count: true }),
    readFigureSeries(db, sinceHours, now),
  ]);
  const networks = new Set<string>([
    ...calls.map((c) => c.network),
    ...payments.map((p) => p.network),
    ...failures.map((f) => f.network),
  ]);
  const perNetwork: NetworkFigures[] = [...networks].sort().map((network) => {
    const paid = calls.find((c) => c.network === network && c.route === "chat");
    const prepaid = calls.find((c) => c.network === network && c.route === "inference");
    const settled = payments.find((p) => p.network === network);
    const received = settled?._sum.units ?? 0n;
    // Prepaid calls cost the operator too: their credit was received earlier (a top-up) or given away (a grant).
    const cost = (paid?._sum.costUnits ?? 0n) + (prepaid?._sum.costUnits ?? 0n);
    return {
      network,
      paidCalls: paid?._count._all ?? 0,
      settleOk: settled?._count._all ?? 0,
      prepaidCalls: prepaid?._count._all ?? 0,
      receivedUsdc: formatUnitsAsUsdc(received),
      upstreamCostUsdc: formatUnitsAsUsdc(cost),
      marginUsdc: formatUnitsAsUsdc(received - cost),
      failures: failures
        .filter((f) => f.network === network)
        .map((f) => ({ stage: f.stage, reason: f.reason, count: f._sum.count ?? 0 })),
    };
  });
  return {
    networks: perNetwork,
    grantsToday: {
      count: grantsToday._count,
      usdc: formatUnitsAsUsdc(grantsToday._sum.units ?? 0n),
      budgetUsdc: formatUnitsAsUsdc(settings.grantBudgetDailyUnits),
    },
    series,
  };
}

/** Recent calls, newest first, with keyset pagination on (created_at, id). */
export async function readRecentCalls(db: DbClient, cursor: { createdAt: string; id: string } | null, limit: number) {
  const rows = await db.inferenceLog.findMany({
    where: cursor
      ? {
          OR: [
            { createdAt: { lt: new Date(cursor.createdAt) } },
            { createdAt: new Date(cursor.createdAt), id: { lt: cursor.id } },
          ],
        }
      : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    select: {
      id: true,
      agentPubkey: true,
      network: true,
      route: true,
      model: true,
      priceUnits: true,
      costUnits: true,
      latencyMs: true,
      status: true,
      createdAt: true,
      txSignature: true,
    },
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      id: r.id,
      agent: r.agentPubkey,
      network: r.network,
      route: r.route,
      model: r.model,
      priceUsdc: r.priceUnits === null ? null : formatUnitsAsUsdc(r.priceUnits),
      costUsdc: formatUnitsAsUsdc(r.costUnits),
      latencyMs: r.latencyMs,
      status: r.status,
      txSignature: r.txSignature,
      createdAt: r.createdAt.toISOString(),
      receiptUrl: `/r/${r.id}`,
    })),
    nextCursor: rows.length > limit && last ? { createdAt: last.createdAt.toISOString(), id: last.id } : null,
  };
}
