import { handleRoute } from "@/server/runtime/handle-route";
import { routeRuntime } from "@/server/runtime/route-edge";
import { listModels } from "@/server/upstream/list-models";
import { payableNetworks } from "@/server/x402/payable-networks";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async () => {
  const ctx = await routeRuntime();
  const settings = await ctx.settings.read();
  return Response.json(listModels(ctx.upstream, settings, payableNetworks(ctx.config.networks, ctx.gateway, settings)));
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
