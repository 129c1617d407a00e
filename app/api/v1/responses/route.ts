import { handleRoute } from "@/server/http/handle-route";
import { readBodyBytes } from "@/server/http/read-json-body";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";
import { MAX_RESPONSES_BODY_BYTES } from "@/server/responses/responses-request-schema";
import { serveResponses } from "@/server/responses/serve-responses";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const rawBody = await readBodyBytes(req, MAX_RESPONSES_BODY_BYTES);
  const result = await serveResponses(await requestRuntime(requestId), { headers: req.headers, rawBody, resourceUrl: req.url });
  if (result.stream) return new Response(result.stream, { headers: result.headers });
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
