import { db } from "@/server/db";
import { config } from "@/server/env";
import { handleRoute } from "@/server/http/handle-route";
import { issueSignInChallenge } from "@/server/operator-auth/sign-in";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async () => Response.json(await issueSignInChallenge(await db(), config().baseUrl), { headers: { "cache-control": "no-store" } }));
