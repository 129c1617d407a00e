import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readJsonBody } from "@/server/http/read-json-body";
import { sessionCookie, signOut } from "@/server/operator-auth/session";
import { signIn, signInSchema } from "@/server/operator-auth/sign-in";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const input = parseWith(signInSchema, await readJsonBody(req, 4_096));
  const rt = await requestRuntime(requestId);
  const token = await signIn(rt.db, rt.config, input, rt);
  return Response.json(
    { ok: true, pubkey: input.pubkey },
    { headers: { "set-cookie": sessionCookie(token, rt.config) } },
  );
});

/** Sign-out: revokes every session token issued to this operator so far, then clears the cookie. */
export const DELETE = handleRoute(async (req, _ctx, requestId) => {
  const rt = await requestRuntime(requestId);
  await signOut(rt.db, rt.config, req.headers.get("cookie"), rt.clock.now());
  return Response.json({ ok: true }, { headers: { "set-cookie": sessionCookie("", rt.config) } });
});

export const { GET, HEAD, PUT, PATCH } = methodsNotAllowed(["POST", "DELETE"]);
