import { rateLimitIpHash } from "@/server/http/client-ip";
import { handleRoute } from "@/server/runtime/handle-route";
import { limitByIp } from "@/server/http/ip-rate-limit";
import { schedulePurge } from "@/server/runtime/purge-expired-rows";
import { issueSignInChallenge } from "@/server/operator-auth/sign-in";
import { requestRuntime } from "@/server/runtime/route-edge";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async (req, _ctx, requestId) => {
  const rt = await requestRuntime(requestId);
  await limitByIp(
    rt.db,
    "operator_challenge",
    rateLimitIpHash(req.headers, await rt.settings.read(), rt.config),
    rt.clock.now(),
  );
  schedulePurge(rt);
  return Response.json(await issueSignInChallenge(rt.db, rt.config.baseUrl, rt.clock), {
    headers: { "cache-control": "no-store" },
  });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
