import { MAX_CHAT_BODY_BYTES } from "@/server/schemas/chat-request-schema";
import { serveChat } from "@/server/chat/serve-chat";
import { handleRoute } from "@/server/runtime/handle-route";
import { readBodyBytes } from "@/server/http/read-json-body";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { requestRuntime } from "@/server/runtime/route-edge";
import { schedulePurge } from "@/server/runtime/purge-expired-rows";

export const dynamic = "force-dynamic";

export const POST = handleRoute(async (req, _ctx, requestId) => {
  const rawBody = await readBodyBytes(req, MAX_CHAT_BODY_BYTES);
  const runtime = await requestRuntime(requestId);
  // Rows the paid and prepaid calls write expire: their purge starts here, at most once per interval per process.
  schedulePurge(runtime);
  const result = await serveChat(runtime, { headers: req.headers, rawBody, resourceUrl: req.url });
  if (result.stream) return new Response(result.stream, { headers: result.headers });
  return Response.json(result.body, { headers: result.headers });
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
