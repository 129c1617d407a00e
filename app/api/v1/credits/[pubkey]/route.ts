import { handleRoute } from "@/server/http/handle-route";
import { readCredits } from "@/server/prepaid/read-credits";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = handleRoute<{ params: Promise<{ pubkey: string }> }>(async (req, { params }) => {
  const { pubkey } = await params;
  const rt = await routeRuntime();
  return Response.json(await readCredits(rt.db, rt.config, pubkey, new URL(req.url).searchParams.get("network"), req.headers, rt.clock.now()), { headers: { "cache-control": "no-store" } });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
