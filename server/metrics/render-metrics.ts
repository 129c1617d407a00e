// GET /metrics: checks the scraper's Bearer token, refreshes the scrape-time gauges, renders the registry.
import "server-only";
import { db } from "../db";
import { AppError } from "../errors";
import { readHealth } from "../health/check-health";
import { metricsAccess } from "../health/metrics-token";
import { collectScrapeGauges } from "./collect-scrape-gauges";
import { metrics } from "./registry";

/** The Prometheus text exposition, or throws `unauthorized` (and `server_misconfigured` in production without a token). */
export async function renderMetrics(authorization: string | null): Promise<{ body: string; contentType: string }> {
  requireMetricsToken(authorization);
  const m = metrics();
  const health = await readHealth();
  await collectScrapeGauges(m, health, health.database.ok ? await db().catch(() => null) : null);
  return { body: await m.registry.metrics(), contentType: m.registry.contentType };
}

/** SECURITY: production always requires the token (start-up refuses without one; this refuses too, should it be skipped). */
function requireMetricsToken(authorization: string | null): void {
  const access = metricsAccess(authorization);
  if (access === "unconfigured") throw new AppError("server_misconfigured", "METRICS_TOKEN is not configured");
  if (access === "refused") throw new AppError("unauthorized", "GET /metrics needs the metrics token: Authorization: Bearer <METRICS_TOKEN>");
}
