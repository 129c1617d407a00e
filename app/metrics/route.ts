import { handleRoute } from "@/server/runtime/handle-route";
import { renderMetrics } from "@/server/health/render-metrics";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

// Prometheus text format; a Bearer METRICS_TOKEN is required whenever one is configured (always in production).
export const GET = handleRoute(async (req) => {
  const { body, contentType } = await renderMetrics(await routeRuntime(), req.headers.get("authorization"));
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
