import { requestRuntime } from "@/server/runtime/route-edge";
import { handleRoute } from "@/server/runtime/handle-route";
import { readBodyText } from "@/server/http/read-json-body";
import { acceptCosignature } from "@/server/transparency/accept-cosignature";

export const dynamic = "force-dynamic";

/** A witness posts a checkpoint it cosigned (text/plain signed note); answers the checkpoint with all its cosignatures. */
export const POST = handleRoute(async (req, _ctx, requestId) => {
  const rt = await requestRuntime(requestId);
  const stored = await acceptCosignature(rt.db, rt.keys.log(), await readBodyText(req, 64_000), rt.log);
  return new Response(stored.note, { headers: { "content-type": "text/plain; charset=utf-8" } });
});
