import { z } from "zod";
import { readHealth } from "@/server/health/check-health";
import { handleRoute, parseWith } from "@/server/http/handle-route";

export const dynamic = "force-dynamic";

const querySchema = z.object({ probe: z.enum(["live", "ready"]).default("ready") });
const NO_STORE = { "cache-control": "no-store" };

// Liveness answers while the process runs; readiness is 503, with its reasons, when this instance should not take traffic.
export const GET = handleRoute(async (req) => {
  const { probe } = parseWith(querySchema, Object.fromEntries(new URL(req.url).searchParams));
  if (probe === "live") return Response.json({ status: "live" }, { headers: NO_STORE });
  const report = await readHealth();
  return Response.json(report, { status: report.ready ? 200 : 503, headers: NO_STORE });
});
