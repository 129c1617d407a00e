import { handleRoute } from "@/server/runtime/handle-route";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";
import { retrieveModel } from "@/server/upstream/list-models";
import { payableNetworks } from "@/server/x402/payable-networks";

export const dynamic = "force-dynamic";

/** One model by its id; the id's slash (`local/echo-1`) makes it more than one path segment. */
export const GET = handleRoute<{ params: Promise<{ id: string[] }> }>(async (_req, { params }) => {
  const id = (await params).id.join("/");
  const ctx = await routeRuntime();
  const settings = await ctx.settings.read();
  return Response.json(
    retrieveModel(ctx.upstream, settings, payableNetworks(ctx.config.networks, ctx.gateway, settings), id),
  );
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
