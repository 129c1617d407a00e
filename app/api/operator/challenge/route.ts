import { db } from "@/server/db";
import { config } from "@/server/env";
import { rateLimitIpHash } from "@/server/http/client-ip";
import { handleRoute } from "@/server/http/handle-route";
import { limitByIp } from "@/server/http/ip-rate-limit";
import { schedulePurge } from "@/server/http/purge-expired-rows";
import { issueSignInChallenge } from "@/server/operator-auth/sign-in";
import { readSettings } from "@/server/settings/read-settings";
import { methodsNotAllowed } from "@/server/http/unserved-routes";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async (req) => {
  const prisma = await db();
  await limitByIp(prisma, "operator_challenge", rateLimitIpHash(req.headers, await readSettings(prisma)));
  schedulePurge(prisma);
  return Response.json(await issueSignInChallenge(prisma, config().baseUrl), { headers: { "cache-control": "no-store" } });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
