import { buildX402Discovery } from "@/server/discovery/x402-discovery";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () => {
    const ctx = await routeRuntime();
    const body = await buildX402Discovery(ctx, await ctx.settings.read(), ctx.config.baseUrl);
    return Response.json(body, { headers: { "cache-control": "public, max-age=60" } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
