// The dashboard's charts over time: per network and per hour, the calls served (paid and prepaid), the USDC received
// (settled payments and top-ups), the upstream cost of the calls served, and the margin between them. Every hour of the
// window is present for every network seen in it (zero when idle), so a chart's time axis has no gaps.
import "server-only";
import type { DbClient } from "../db";
import { Prisma } from "../generated/prisma/client";
import { unitsToUsdcNumber } from "../verify";
import { LANDED_STATES } from "../ledger/payment-states";

/** Payment statuses whose money was received (the same set the figures table counts). */
export const RECEIVED_STATUSES = LANDED_STATES;

const HOUR_MS = 3_600_000;

export interface SeriesPoint {
  hour: string;
  network: string;
  paidCalls: number;
  prepaidCalls: number;
  /** USDC, for plotting only: derived here from the bigint sums, never summed again as money. */
  receivedUsdc: number;
  upstreamCostUsdc: number;
  marginUsdc: number;
}

/** The last `hours` whole hours up to the one holding `now`, oldest first. */
export async function readFigureSeries(db: DbClient, hours: number, now: Date): Promise<SeriesPoint[]> {
  const end = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const start = new Date(end - (hours - 1) * HOUR_MS);
  const [calls, received] = await Promise.all([
    // Hours are counted from the epoch, so the buckets are UTC hours whatever the database session's time zone.
    db.$queryRaw<{ hour: bigint; network: string; paid: bigint; prepaid: bigint; cost: bigint }[]>`
      SELECT floor(extract(epoch FROM created_at) / 3600)::bigint AS hour, network,
             count(*) FILTER (WHERE route = 'chat')::bigint AS paid,
             count(*) FILTER (WHERE route = 'inference')::bigint AS prepaid,
             coalesce(sum(cost_units), 0)::bigint AS cost
      FROM inference_logs WHERE created_at >= ${start}
      GROUP BY 1, 2`,
    db.$queryRaw<{ hour: bigint; network: string; units: bigint }[]>`
      SELECT floor(extract(epoch FROM created_at) / 3600)::bigint AS hour, network, coalesce(sum(units), 0)::bigint AS units
      FROM payments WHERE created_at >= ${start} AND status IN (${Prisma.join([...RECEIVED_STATUSES])})
      GROUP BY 1, 2`,
  ]);
  const key = (hour: bigint | number, network: string) => `${hour}|${network}`;
  const callsAt = new Map(calls.map((c) => [key(c.hour, c.network), c]));
  const receivedAt = new Map(received.map((r) => [key(r.hour, r.network), r.units]));
  const networks = [...new Set([...calls.map((c) => c.network), ...received.map((r) => r.network)])].sort();
  const points: SeriesPoint[] = [];
  for (let t = start.getTime(); t <= end; t += HOUR_MS) {
    for (const network of networks) {
      const c = callsAt.get(key(t / HOUR_MS, network));
      const receivedUnits = receivedAt.get(key(t / HOUR_MS, network)) ?? 0n;
      const costUnits = c?.cost ?? 0n;
      points.push({
        hour: new Date(t).toISOString(),
        network,
        paidCalls: Number(c?.paid ?? 0n),
        prepaidCalls: Number(c?.prepaid ?? 0n),
        receivedUsdc: unitsToUsdcNumber(receivedUnits),
        upstreamCostUsdc: unitsToUsdcNumber(costUnits),
        marginUsdc: unitsToUsdcNumber(receivedUnits - costUnits),
      });
    }
  }
  return points;
}
