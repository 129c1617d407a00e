import { redocBundle } from "@/server/openapi/api-reference";
import { AppError } from "@/server/errors";
import { handleRoute } from "@/server/runtime/handle-route";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async () => {
  const body = await redocBundle().catch(() => {
    throw new AppError("server_misconfigured", "the API reference renderer is not installed (npm install)");
  });
  return new Response(new Uint8Array(body), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } });
});
