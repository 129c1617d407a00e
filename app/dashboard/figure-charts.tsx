"use client";
// The dashboard's charts (recharts): calls per hour by network; received, upstream cost and margin per network over
// time; payment failures by reason. Each has labelled axes and a caption; the tables below stay the exact figures.
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { SeriesPoint } from "@/server/dashboard/read-figure-series";
import { SHIPPED_NETWORKS } from "@/server/verify";

export interface NetworkFailures {
  network: string;
  failures: { stage: string; reason: string; count: number }[];
}

// Each network's name and chart colour by CAIP-2 id, from its row (colour-blind-safe hues, dark enough to read against white).
// A client component has no config: it knows this release's networks, and names another by its CAIP-2 id.
const NETWORK_LABELS: Record<string, string> = Object.fromEntries(SHIPPED_NETWORKS.rows.map((n) => [n.caip2, n.label]));
const NETWORK_COLORS: Record<string, string> = Object.fromEntries(
  SHIPPED_NETWORKS.rows.map((n) => [n.caip2, n.chartColor]),
);
const MONEY_COLORS = { received: "#2563eb", cost: "#c2410c", margin: "#15803d" };
const AXIS = { fontSize: 12, fill: "#334155" };

/** A network's name for people. */
export function networkLabel(network: string): string {
  return NETWORK_LABELS[network] ?? (network.length > 20 ? `${network.slice(0, 20)}…` : network);
}

const hourLabel = (iso: string) => `${iso.slice(11, 13)}:00`;

export function CallsChart({ series }: { series: SeriesPoint[] }) {
  const networks = [...new Set(series.map((p) => p.network))];
  const rows = byHour(series, (p) => p.paidCalls + p.prepaidCalls);
  return (
    <ChartFigure
      id="chart-calls"
      title="Calls served per hour, by network"
      caption="Paid and prepaid calls served in each hour (UTC) of the last 24 hours."
    >
      {networks.length === 0 ? (
        <EmptyChart />
      ) : (
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={rows} margin={{ top: 8, right: 12, bottom: 24, left: 4 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
            <XAxis
              dataKey="hour"
              tickFormatter={hourLabel}
              tick={AXIS}
              minTickGap={16}
              label={{ value: "hour (UTC)", position: "insideBottom", offset: -14, ...AXIS }}
            />
            <YAxis
              allowDecimals={false}
              tick={AXIS}
              width={44}
              label={{ value: "calls", angle: -90, position: "insideLeft", offset: 10, ...AXIS }}
            />
            <Tooltip labelFormatter={(l) => `${hourLabel(String(l))} UTC`} />
            <Legend verticalAlign="top" height={28} />
            {networks.map((n) => (
              <Bar
                key={n}
                dataKey={n}
                name={networkLabel(n)}
                stackId="calls"
                fill={NETWORK_COLORS[n] ?? "#475569"}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
    </ChartFigure>
  );
}

export function MoneyCharts({ series }: { series: SeriesPoint[] }) {
  const networks = [...new Set(series.map((p) => p.network))];
  if (networks.length === 0) {
    return (
      <ChartFigure
        id="chart-money"
        title="Received, upstream cost and margin"
        caption="Per network, per hour (UTC), in USDC."
      >
        <EmptyChart />
      </ChartFigure>
    );
  }
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      {networks.map((n) => (
        <ChartFigure
          key={n}
          id={`chart-money-${n.replace(/[^a-zA-Z0-9]/g, "-")}`}
          title={`${networkLabel(n)}: received, upstream cost and margin`}
          caption="USDC per hour (UTC): settled payments and top-ups received, the upstream cost of the calls served, and what is left."
          testId="money-chart"
        >
          <ResponsiveContainer width="100%" height={240}>
            <LineChart data={series.filter((p) => p.network === n)} margin={{ top: 8, right: 12, bottom: 24, left: 4 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
              <XAxis
                dataKey="hour"
                tickFormatter={hourLabel}
                tick={AXIS}
                minTickGap={16}
                label={{ value: "hour (UTC)", position: "insideBottom", offset: -14, ...AXIS }}
              />
              <YAxis
                tick={AXIS}
                width={56}
                label={{ value: "USDC", angle: -90, position: "insideLeft", offset: 6, ...AXIS }}
              />
              <Tooltip labelFormatter={(l) => `${hourLabel(String(l))} UTC`} formatter={(v) => `${String(v)} USDC`} />
              <Legend verticalAlign="top" height={28} />
              <Line
                type="monotone"
                dataKey="receivedUsdc"
                name="received"
                stroke={MONEY_COLORS.received}
                strokeWidth={2}
                dot={false}
                isAnimationActive={false}
              />
              <Line
                type="monotone"
                dataKey="upstreamCostUsdc"
                name="upstream cost"
                stroke={MONEY_COLORS.cost}
                strokeWidth={2}
                dot={false}
                isAnimationActive={false}
              />
              <Line
                type="monotone"
                dataKey="marginUsdc"
                name="margin"
                stroke={MONEY_COLORS.margin}
                strokeWidth={2}
                strokeDasharray="5 3"
                dot={false}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </ChartFigure>
      ))}
    </div>
  );
}

export function FailuresChart({ networks }: { networks: NetworkFailures[] }) {
  const names = networks.filter((n) => n.failures.length > 0).map((n) => n.network);
  const reasons = new Map<string, Record<string, number | string>>();
  for (const n of networks) {
    for (const f of n.failures) {
      const reason = `${f.stage}: ${f.reason}`;
      const row = reasons.get(reason) ?? { reason };
      row[n.network] = Number(row[n.network] ?? 0) + f.count;
      reasons.set(reason, row);
    }
  }
  const rows = [...reasons.values()];
  return (
    <ChartFigure
      id="chart-failures"
      title="Payment failures by reason"
      caption="Refused or failed payments in the last 90 days, by stage and reason, per network."
    >
      {rows.length === 0 ? (
        <EmptyChart text="No payment has failed in the last 90 days." />
      ) : (
        <ResponsiveContainer width="100%" height={Math.max(140, 48 + rows.length * 34)}>
          <BarChart data={rows} layout="vertical" margin={{ top: 8, right: 16, bottom: 24, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
            <XAxis
              type="number"
              allowDecimals={false}
              tick={AXIS}
              label={{ value: "failures", position: "insideBottom", offset: -14, ...AXIS }}
            />
            <YAxis type="category" dataKey="reason" tick={AXIS} width={150} />
            <Tooltip />
            <Legend verticalAlign="top" height={28} />
            {names.map((n) => (
              <Bar
                key={n}
                dataKey={n}
                name={networkLabel(n)}
                stackId="failures"
                fill={NETWORK_COLORS[n] ?? "#475569"}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
    </ChartFigure>
  );
}

function ChartFigure({
  id,
  title,
  caption,
  testId,
  children,
}: {
  id: string;
  title: string;
  caption: string;
  testId?: string;
  children: React.ReactNode;
}) {
  return (
    <figure
      aria-labelledby={`${id}-title`}
      data-testid={testId ?? id}
      className="min-w-0 rounded-lg border border-slate-200 p-3"
    >
      <h3 id={`${id}-title`} className="text-sm font-semibold text-slate-900">
        {title}
      </h3>
      <figcaption className="mb-2 text-xs text-slate-600">{caption}</figcaption>
      {children}
    </figure>
  );
}

function EmptyChart({ text = "No calls in the last 24 hours yet." }: { text?: string }) {
  return <p className="rounded bg-slate-50 p-6 text-center text-sm text-slate-600">{text}</p>;
}

/** One row per hour with a column per network, as a stacked chart reads it. */
function byHour(series: SeriesPoint[], value: (p: SeriesPoint) => number): Record<string, number | string>[] {
  const rows = new Map<string, Record<string, number | string>>();
  for (const p of series) {
    const row = rows.get(p.hour) ?? { hour: p.hour };
    row[p.network] = value(p);
    rows.set(p.hour, row);
  }
  return [...rows.values()];
}
