import { AppError } from "@/server/errors";
import { handleRoute } from "@/server/runtime/handle-route";
import { sessionCookie } from "@/server/operator-auth/session";
import { redeemLoginLink } from "@/server/operator-auth/sign-in";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = handleRoute(async (req, _ctx, requestId) => {
  const params = new URL(req.url).searchParams;
  const message = params.get("m");
  const signature = params.get("s");
  if (!message || !signature) throw new AppError("invalid_request", "a login link carries m and s");
  const decoded = Buffer.from(message, "base64url").toString("utf8");
  const rt = await requestRuntime(requestId);
  const token = await redeemLoginLink(rt.db, rt.config, decoded, signature, rt.config.baseUrl, rt);
  return new Response(null, {
    status: 303,
    headers: { location: "/dashboard", "set-cookie": sessionCookie(token, rt.config) },
  });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
