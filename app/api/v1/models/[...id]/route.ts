import { handleRoute } from "@/server/http/handle-route";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";
import { retrieveModel } from "@/server/upstream/list-models";

export const dynamic = "force-dynamic";

/** One model by its id; the id's slash (`local/echo-1`) makes it more than one path segment. */
export const GET = handleRoute<{ params: Promise<{ id: string[] }> }>(async (_req, { params }) => {
  const id = (await params).id.join("/");
  const ctx = await routeRuntime();
  return Response.json(retrieveModel(ctx.upstream, await ctx.settings.read(), ctx.config.networks, id));
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
