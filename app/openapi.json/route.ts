import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { openApiAnswer } from "@/server/openapi/serve-openapi";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () => openApiAnswer(await routeRuntime())),
);

export const OPTIONS = corsPreflight(["GET"]);

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "OPTIONS"]);
