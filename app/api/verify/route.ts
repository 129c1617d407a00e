import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute, parseWith } from "@/server/http/handle-route";
import { readJsonBody } from "@/server/http/read-json-body";
import { issueVerdict } from "@/server/hosted-verify/issue-verdict";
import { verifyRequestSchema } from "@/server/hosted-verify/verify-request-schema";
import { methodsNotAllowed } from "@/server/http/unserved-routes";
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
