import { MAX_EMBEDDINGS_BODY_BYTES } from "@/server/embeddings/embeddings-request-schema";
import { serveEmbeddings } from "@/server/embeddings/serve-embeddings";
import { handleRoute } from "@/server/http/handle-route";
import { readBodyBytes } from "@/server/http/read-json-body";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const rawBody = await readBodyBytes(req, MAX_EMBEDDINGS_BODY_BYTES);
  const result = await serveEmbeddings(await requestRuntime(requestId), { headers: req.headers, rawBody, resourceUrl: req.url });
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
