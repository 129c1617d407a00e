import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { logKeyResource } from "@/server/transparency/read-log";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

/** The log's origin and verifier key (distinct from the operator key), and the witnesses whose cosignatures it publishes. */
export const GET = withCors(
  ["GET"],
  handleRoute(async () =>
    Response.json(logKeyResource((await routeRuntime()).keys.log()), {
      headers: { "cache-control": "public, max-age=60" },
    }),
  ),
);

export const OPTIONS = corsPreflight(["GET"]);
