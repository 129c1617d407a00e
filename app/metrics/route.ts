import { handleRoute } from "@/server/http/handle-route";
import { renderMetrics } from "@/server/metrics/render-metrics";

export const dynamic = "force-dynamic";

// Prometheus text format; a Bearer METRICS_TOKEN is required whenever one is configured (always in production).
export const GET = handleRoute(async (req) => {
  const { body, contentType } = await renderMetrics(req.headers.get("authorization"));
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
