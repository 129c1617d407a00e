import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readBodyBytes } from "@/server/http/read-json-body";
import { topUpCredits } from "@/server/prepaid/top-up-credits";
import { topUpRequestSchema } from "@/server/schemas/top-up-request-schema";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";
import { paidJson } from "@/server/x402/unpaid-probe";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  // An unpaid POST without a body is a probe: it gets the challenge for the example top-up.
  const body = parseWith(topUpRequestSchema, paidJson("topup", req.headers, await readBodyBytes(req, 4_096)));
  const result = await topUpCredits(await requestRuntime(requestId), body, req.headers, req.url);
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
