// GET /metrics: checks the scraper's Bearer token, refreshes the scrape-time gauges, renders the registry.
import "server-only";
import { AppError } from "../errors";
import { readRuntimeHealth } from "./check-health";
import type { Runtime } from "../context/runtime";
import { metricsAccess } from "./metrics-token";
import { collectScrapeGauges } from "./collect-scrape-gauges";

/** The Prometheus text exposition, or throws `unauthorized` (and `server_misconfigured` in production without a token). */
export async function renderMetrics(
  runtime: Runtime,
  authorization: string | null,
): Promise<{ body: string; contentType: string }> {
  requireMetricsToken(runtime.config, authorization);
  const m = runtime.metrics;
  const health = await readRuntimeHealth(runtime);
  await collectScrapeGauges(m, health, health.database.ok ? runtime.db : null);
  m.recordsWaiting.set(runtime.state.records.size);
  return { body: await m.registry.metrics(), contentType: m.registry.contentType };
}

/** SECURITY: production always requires the token (start-up refuses without one; this refuses too, should it be skipped). */
function requireMetricsToken(cfg: Runtime["config"], authorization: string | null): void {
  const access = metricsAccess(authorization, cfg);
  if (access === "unconfigured") throw new AppError("server_misconfigured", "METRICS_TOKEN is not configured");
  if (access === "refused")
    throw new AppError("unauthorized", "GET /metrics needs the metrics token: Authorization: Bearer <METRICS_TOKEN>");
}
