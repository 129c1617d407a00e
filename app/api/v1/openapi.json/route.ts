import { config } from "@/server/env";
import { handleRoute } from "@/server/http/handle-route";
import { buildOpenApiDocument } from "@/server/openapi/openapi-document";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async () =>
  Response.json(buildOpenApiDocument(config().baseUrl), { headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" } }),
);
