import { routeRuntime } from "@/server/runtime/route-edge";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { readLatestCheckpoint } from "@/server/transparency/publish-log";

export const dynamic = "force-dynamic";

/**
 * The latest signed checkpoint (C2SP tlog-checkpoint), with its witness cosignatures; an empty log's is size 0 with
 * the empty tree's root. Mutable: cached a few seconds.
 */
export const GET = withCors(
  ["GET"],
  handleRoute(async () => {
    const checkpoint = await readLatestCheckpoint(
      ...(await routeRuntime().then((rt) => [rt.db, rt.keys.log()] as const)),
    );
    return new Response(checkpoint.note, {
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=2" },
    });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
