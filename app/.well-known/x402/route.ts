import { appContext } from "@/server/app-context";
import { buildX402Discovery } from "@/server/discovery/x402-discovery";
import { config } from "@/server/env";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/http/handle-route";
import { readSettings } from "@/server/settings/read-settings";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () => {
    const ctx = await appContext();
    const body = await buildX402Discovery(ctx, await readSettings(ctx.db), config().baseUrl);
    return Response.json(body, { headers: { "cache-control": "public, max-age=60" } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
