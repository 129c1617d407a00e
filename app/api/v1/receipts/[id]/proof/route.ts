import { z } from "zod";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { proveReceiptInclusion } from "@/server/transparency/read-log";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

const querySchema = z.object({
  id: z.uuid({ message: "an inference id (UUID)" }).transform((v) => v.toLowerCase()),
  tree_size: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  cosigned: z.enum(["true", "false"]).optional(),
});

/** A receipt's inclusion proof in the public receipt log, against a signed checkpoint (409 log_pending until then). */
export const GET = withCors(
  ["GET"],
  handleRoute<{ params: Promise<{ id: string }> }>(async (req, { params }) => {
    const url = new URL(req.url);
    const q = parseWith(querySchema, {
      id: (await params).id,
      tree_size: url.searchParams.get("tree_size") ?? undefined,
      cosigned: url.searchParams.get("cosigned") ?? undefined,
    });
    const rt = await routeRuntime();
    const proof = await proveReceiptInclusion(rt.db, rt.keys.log(), q.id, {
      treeSize: q.tree_size,
      cosigned: q.cosigned === "true",
    });
    return Response.json(proof, { headers: { "cache-control": "public, max-age=60" } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "OPTIONS"]);
