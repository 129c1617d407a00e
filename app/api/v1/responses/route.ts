import { appContext } from "@/server/app-context";
import { handleRoute, parseWith } from "@/server/http/handle-route";
import { readJsonBody } from "@/server/http/read-json-body";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
import { MAX_RESPONSES_BODY_BYTES, responsesRequestSchema } from "@/server/responses/responses-request-schema";
import { servePaidResponses } from "@/server/responses/serve-paid-responses";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req) => {
  const body = parseWith(responsesRequestSchema, await readJsonBody(req, MAX_RESPONSES_BODY_BYTES));
  const result = await servePaidResponses(await appContext(), { body, headers: req.headers, resourceUrl: req.url });
  if (result.stream) return new Response(result.stream, { headers: result.headers });
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
