import { handleRoute } from "@/server/http/handle-route";
import { readBodyBytes } from "@/server/http/read-json-body";
import { MAX_INFERENCE_BODY_BYTES } from "@/server/prepaid/inference-request-schema";
import { servePrepaidInference } from "@/server/prepaid/serve-prepaid-inference";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const rawBody = await readBodyBytes(req, MAX_INFERENCE_BODY_BYTES);
  const result = await servePrepaidInference(await requestRuntime(requestId), req.headers, rawBody);
  if (result.stream) return new Response(result.stream, { headers: result.headers });
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
