import { chatRequestSchema, MAX_CHAT_BODY_BYTES } from "@/server/schemas/chat-request-schema";
import { servePaidChat } from "@/server/chat/serve-paid-chat";
import { handleRoute } from "@/server/runtime/handle-route";
import { parseWith } from "@/server/http/parse-with";
import { readJsonBody } from "@/server/http/read-json-body";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const body = parseWith(chatRequestSchema, await readJsonBody(req, MAX_CHAT_BODY_BYTES));
  const result = await servePaidChat(await requestRuntime(requestId), {
    body,
    headers: req.headers,
    resourceUrl: req.url,
  });
  if (result.stream) return new Response(result.stream, { headers: result.headers });
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
