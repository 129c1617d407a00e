import { z } from "zod";
import { readHealthFor } from "@/server/health/check-health";
import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeHealthSource } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

const querySchema = z.object({ probe: z.enum(["live", "ready"]).default("ready") });
const NO_STORE = { "cache-control": "no-store" };

// Liveness answers while the process runs; readiness is 503, with its reasons, when this instance should not take
// traffic. The parts' detail needs the metrics token (Authorization: Bearer <METRICS_TOKEN>).
export const GET = handleRoute(async (req) => {
  const { probe } = parseWith(querySchema, Object.fromEntries(new URL(req.url).searchParams));
  if (probe === "live") return Response.json({ status: "live" }, { headers: NO_STORE });
  const { ready, body } = await readHealthFor(req.headers.get("authorization"), await routeHealthSource());
  return Response.json(body, { status: ready ? 200 : 503, headers: NO_STORE });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
