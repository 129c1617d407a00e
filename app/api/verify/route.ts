import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readJsonBody } from "@/server/http/read-json-body";
import { issueVerdict } from "@/server/hosted-verify/issue-verdict";
import { verifyRequestSchema } from "@/server/schemas/verify-request-schema";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const POST = withCors(
  ["POST"],
  handleRoute(async (req, _ctx, requestId) => {
    const request = parseWith(verifyRequestSchema, await readJsonBody(req));
    return Response.json(await issueVerdict(await requestRuntime(requestId), request));
  }),
);

export const OPTIONS = corsPreflight(["POST"]);

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST", "OPTIONS"]);
