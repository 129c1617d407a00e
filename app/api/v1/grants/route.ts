import { db } from "@/server/db";
import { config } from "@/server/env";
import { claimGrant, claimGrantSchema } from "@/server/grants/claim-grant";
import { ipHashSalt } from "@/server/grants/ip-hash-salt";
import { clientIp, hashIp } from "@/server/http/client-ip";
import { handleRoute, parseWith } from "@/server/http/handle-route";
import { readJsonBody } from "@/server/http/read-json-body";
import { readSettings } from "@/server/settings/read-settings";
import { methodsNotAllowed } from "@/server/http/unserved-routes";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req) => {
  const body = parseWith(claimGrantSchema, await readJsonBody(req, 4_096));
  const prisma = await db();
  const settings = await readSettings(prisma);
  const ipHash = hashIp(clientIp(req.headers, config().trustedProxyHops), ipHashSalt(settings));
  return Response.json(await claimGrant(prisma, body, ipHash, settings));
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
