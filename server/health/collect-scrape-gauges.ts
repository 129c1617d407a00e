// The gauges read at scrape time: readiness, chain RPCs and fee-payer balances (from the cached health probes, so a
// scrape adds no RPC load) and the ledger's totals (one SQL round trip).
import "server-only";
import type { DbClient } from "../db";
import type { HealthReport } from "./check-health";
import type { SignetMetrics } from "../metrics/registry";

/** Sets the scrape-time gauges from `health` and the ledger. A database that cannot be read leaves the ledger gauges as they were. */
export async function collectScrapeGauges(m: SignetMetrics, health: HealthReport, db: DbClient | null): Promise<void> {
  m.ready.set(health.ready ? 1 : 0);
  for (const chain of health.chains) m.chainUp.set({ network: chain.network }, chain.ok ? 1 : 0);
  for (const account of health.feePayer.accounts) {
    if (account.balance !== null)
      m.feePayerBalance.set({ network: account.network, unit: account.unit }, account.balance);
  }
  if (!db) return;
  const rows = await db.$queryRaw<
    { network: string; credits: string; charges: string; open_holds: string; open_hold_units: string }[]
  >`
    WITH credits AS (
      SELECT network, SUM(units) AS credits FROM ledger_entries WHERE kind LIKE '%\\_credit' GROUP BY network
    ), holds AS (
      SELECT network,
        COALESCE(SUM(charged_units) FILTER (WHERE status = 'captured'), 0) AS charges,
        COUNT(*) FILTER (WHERE status = 'held') AS open_holds,
        COALESCE(SUM(units) FILTER (WHERE status = 'held'), 0) AS open_hold_units
      FROM credit_holds GROUP BY network
    )
    SELECT COALESCE(c.network, h.network) AS network, COALESCE(c.credits, 0)::text AS credits, COALESCE(h.charges, 0)::text AS charges,
      COALESCE(h.open_holds, 0)::text AS open_holds, COALESCE(h.open_hold_units, 0)::text AS open_hold_units
    FROM credits c FULL OUTER JOIN holds h ON h.network = c.network`.catch(() => null);
  for (const row of rows ?? []) {
    const labels = { network: row.network };
    m.ledgerCredits.set(labels, Number(row.credits));
    m.ledgerCharges.set(labels, Number(row.charges));
    m.openHolds.set(labels, Number(row.open_holds));
    m.openHoldUnits.set(labels, Number(row.open_hold_units));
  }
}
