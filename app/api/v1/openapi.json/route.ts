import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { buildOpenApiDocument } from "@/server/openapi/openapi-document";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeConfig } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () => {
    const config = await routeConfig();
    return Response.json(buildOpenApiDocument(config.baseUrl, config.networks), { headers: { "cache-control": "public, max-age=300" } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "OPTIONS"]);
