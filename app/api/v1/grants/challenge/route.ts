import { db } from "@/server/db";
import { config } from "@/server/env";
import { AppError } from "@/server/errors";
import { issueGrantChallenge } from "@/server/grants/grant-challenge";
import { rateLimitIpHash } from "@/server/http/client-ip";
import { handleRoute } from "@/server/http/handle-route";
import { limitByIp } from "@/server/http/ip-rate-limit";
import { schedulePurge } from "@/server/http/purge-expired-rows";
import { readSettings } from "@/server/settings/read-settings";
import { methodsNotAllowed } from "@/server/http/unserved-routes";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async (req) => {
  const agent = new URL(req.url).searchParams.get("agent_pubkey");
  if (!agent) throw new AppError("invalid_request", "agent_pubkey is required", { detail: "agent_pubkey" });
  const prisma = await db();
  const settings = await readSettings(prisma);
  await limitByIp(prisma, "grant_challenge", rateLimitIpHash(req.headers, settings));
  schedulePurge(prisma);
  return Response.json(await issueGrantChallenge(prisma, agent, settings.grantAmountUnits, config().baseUrl), { headers: { "cache-control": "no-store" } });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
