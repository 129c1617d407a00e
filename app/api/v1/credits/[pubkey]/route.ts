import { handleRoute } from "@/server/runtime/handle-route";
import { readCredits } from "@/server/prepaid/read-credits";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = handleRoute<{ params: Promise<{ pubkey: string }> }>(async (req, { params }, requestId) => {
  const { pubkey } = await params;
  const rt = await requestRuntime(requestId);
  return Response.json(
    await readCredits(rt.db, rt.config, pubkey, new URL(req.url).searchParams.get("network"), req.headers, rt),
    { headers: { "cache-control": "no-store" } },
  );
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
