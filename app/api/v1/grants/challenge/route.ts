import { AppError } from "@/server/errors";
import { issueGrantChallenge } from "@/server/grants/grant-challenge";
import { rateLimitIpHash } from "@/server/http/client-ip";
import { handleRoute } from "@/server/runtime/handle-route";
import { limitByIp } from "@/server/http/ip-rate-limit";
import { schedulePurge } from "@/server/runtime/purge-expired-rows";
import { requestRuntime } from "@/server/runtime/route-edge";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async (req, _ctx, requestId) => {
  const agent = new URL(req.url).searchParams.get("agent_pubkey");
  if (!agent) throw new AppError("invalid_request", "agent_pubkey is required", { detail: "agent_pubkey" });
  const rt = await requestRuntime(requestId);
  const settings = await rt.settings.read();
  await limitByIp(rt.db, "grant_challenge", rateLimitIpHash(req.headers, settings, rt.config), rt.clock.now());
  schedulePurge(rt);
  return Response.json(
    await issueGrantChallenge(rt.db, agent, settings.grantAmountUnits, rt.config.baseUrl, rt.clock.now()),
    { headers: { "cache-control": "no-store" } },
  );
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
