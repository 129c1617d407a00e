import { AppError } from "@/server/errors";
import { readBodyBytes } from "@/server/http/read-json-body";
import { MAX_MCP_BODY_BYTES, mcpRefusal, serveMcp } from "@/server/mcp/mcp-server";
import { handleRoute } from "@/server/runtime/handle-route";
import { requestRuntime } from "@/server/runtime/route-edge";
import { schedulePurge } from "@/server/runtime/purge-expired-rows";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";

export const dynamic = "force-dynamic";

// Stateless streamable HTTP: every request is a POST answered in full; there is no session stream to GET or DELETE.
export const POST = handleRoute(async (req, _ctx, requestId) => {
  let rawBody: Uint8Array;
  try {
    rawBody = await readBodyBytes(req, MAX_MCP_BODY_BYTES);
  } catch (err) {
    if (err instanceof AppError) return mcpRefusal(err);
    throw err;
  }
  const runtime = await requestRuntime(requestId);
  // Rows the paid and prepaid calls write expire: their purge starts here, at most once per interval per process.
  schedulePurge(runtime);
  return serveMcp(runtime, req, rawBody);
});

export const { GET, HEAD, PUT, PATCH, DELETE } = methodsNotAllowed(["POST"]);
