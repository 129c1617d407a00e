import { claimGrant, claimGrantSchema } from "@/server/grants/claim-grant";
import { ipHashSalt } from "@/server/http/ip-hash-salt";
import { clientIp, hashIp } from "@/server/http/client-ip";
import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readJsonBody } from "@/server/http/read-json-body";
import { requestRuntime } from "@/server/runtime/route-edge";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const body = parseWith(claimGrantSchema, await readJsonBody(req, 4_096));
  const rt = await requestRuntime(requestId);
  const settings = await rt.settings.read();
  const ipHash = hashIp(clientIp(req.headers, rt.config.trustedProxyHops), ipHashSalt(settings, rt.config));
  return Response.json(await claimGrant(rt.db, rt.config.networks, body, ipHash, settings, rt));
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
