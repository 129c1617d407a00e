// Who may read the service's operating detail (GET /metrics, and the detail of GET /api/health): the holder of
// METRICS_TOKEN, sent as a Bearer token. Outside production with no token configured, anyone may.
import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import type { Config } from "../env";

/** `granted`: show the detail; `refused`: a token is configured and the request does not carry it; `unconfigured`: production without a token. */
export type MetricsAccess = "granted" | "refused" | "unconfigured";

/** Whether the request's Authorization header carries the metrics token. */
export function metricsAccess(
  authorization: string | null,
  cfg: Pick<Config, "METRICS_TOKEN" | "isProduction">,
): MetricsAccess {
  const token = cfg.METRICS_TOKEN;
  // SECURITY: production always has a token (start-up refuses without one); should that check be skipped, nobody is granted.
  if (!token) return cfg.isProduction ? "unconfigured" : "granted";
  const given = /^Bearer (.+)$/i.exec(authorization ?? "")?.[1] ?? "";
  // Compare digests so neither the length nor the content leaks through timing.
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(token)) ? "granted" : "refused";
}
