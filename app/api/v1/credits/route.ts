import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readJsonBody } from "@/server/http/read-json-body";
import { topUpCredits } from "@/server/prepaid/top-up-credits";
import { topUpRequestSchema } from "@/server/schemas/top-up-request-schema";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const body = parseWith(topUpRequestSchema, await readJsonBody(req, 4_096));
  const result = await topUpCredits(await requestRuntime(requestId), body, req.headers, req.url);
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
