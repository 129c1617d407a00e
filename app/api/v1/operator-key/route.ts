import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { operatorKeyResource } from "@/server/keys/operator-key-resource";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () =>
    Response.json(operatorKeyResource(await routeRuntime()), { headers: { "cache-control": "public, max-age=60" } }),
  ),
);

export const OPTIONS = corsPreflight(["GET"]);

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "OPTIONS"]);
