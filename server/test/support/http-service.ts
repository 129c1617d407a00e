// The service's REST routes over real HTTP (node:http, the way `next start` serves them), for tests that reach it
// the way outside tools do: the openai SDK, OpenAPI response validation.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST as chatRoute } from "@/app/api/v1/chat/completions/route";
import { POST as responsesRoute } from "@/app/api/v1/responses/route";
import { POST as embeddingsRoute } from "@/app/api/v1/embeddings/route";
import { GET as creditsRoute } from "@/app/api/v1/credits/[pubkey]/route";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { GET as grantChallengeRoute } from "@/app/api/v1/grants/challenge/route";
import { POST as grantRoute } from "@/app/api/v1/grants/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { GET as modelsRoute } from "@/app/api/v1/models/route";
import { GET as modelRoute } from "@/app/api/v1/models/[...id]/route";
import { GET as openapiRoute } from "@/app/api/v1/openapi.json/route";
import { GET as rootOpenapiRoute } from "@/app/openapi.json/route";
import { GET as discoveryRoute } from "@/app/.well-known/x402/route";
import { GET as didDocumentRoute } from "@/app/.well-known/did.json/route";
import { GET as operatorKeyRoute } from "@/app/api/v1/operator-key/route";
import { GET as receiptRoute } from "@/app/api/v1/receipts/[id]/route";
import { GET as verifierKeyRoute } from "@/app/api/verify/operator-key/route";
import { POST as verifyRoute } from "@/app/api/verify/route";
import { GET as mcpGetRoute, POST as mcpRoute } from "@/app/mcp/route";
import { setEnv } from "./env";
import { startPaidStack, type PaidStack } from "./paid-stack";
import { GET as receiptProofRoute } from "@/app/api/v1/receipts/[id]/proof/route";
import { GET as logCheckpointRoute } from "@/app/log/checkpoint/route";
import { GET as logCheckpointsRoute } from "@/app/log/checkpoints/[size]/route";
import { POST as logCosignatureRoute } from "@/app/log/cosignature/route";
import { GET as logKeyRoute } from "@/app/log/key/route";
import { GET as logTileRoute } from "@/app/log/tile/[...path]/route";
import { answerWithRoute, type FetchRoute } from "./route-adapter";

const param = (name: string, value: string) =>
  ({ params: Promise.resolve({ [name]: decodeURIComponent(value) }) }) as never;

/** The route for a method and path, or null. */
function routeFor(method: string, path: string): FetchRoute | null {
  const exact: Record<string, FetchRoute> = {
    "POST /api/v1/chat/completions": (r) => chatRoute(r, {}),
    "POST /api/v1/responses": (r) => responsesRoute(r, {}),
    "POST /api/v1/embeddings": (r) => embeddingsRoute(r, {}),
    "POST /api/v1/inference": (r) => inferenceRoute(r, {}),
    "POST /api/v1/credits": (r) => topUpRoute(r, {}),
    "GET /api/v1/models": (r) => modelsRoute(r, {}),
    "GET /api/v1/openapi.json": (r) => openapiRoute(r, {}),
    "GET /openapi.json": (r) => rootOpenapiRoute(r, {}),
    "GET /.well-known/x402": (r) => discoveryRoute(r, {}),
    "GET /.well-known/did.json": (r) => didDocumentRoute(r, {}),
    "GET /api/v1/operator-key": (r) => operatorKeyRoute(r, {}),
    "GET /api/v1/grants/challenge": (r) => grantChallengeRoute(r, {}),
    "POST /api/v1/grants": (r) => grantRoute(r, {}),
    "POST /api/verify": (r) => verifyRoute(r, {}),
    "POST /mcp": (r) => mcpRoute(r, {}),
    "GET /mcp": (r) => mcpGetRoute(r, {}),
    "GET /api/verify/operator-key": (r) => verifierKeyRoute(r, {}),
    "GET /log/checkpoint": (r) => logCheckpointRoute(r, {}),
    "GET /log/key": (r) => logKeyRoute(r, {}),
    "POST /log/cosignature": (r) => logCosignatureRoute(r, {}),
  };
  const hit = exact[`${method} ${path}`];
  if (hit) return hit;
  const receipt = /^\/api\/v1\/receipts\/([^/]+)$/.exec(path);
  if (method === "GET" && receipt) return (r) => receiptRoute(r, param("id", receipt[1]!));
  const proof = /^\/api\/v1\/receipts\/([^/]+)\/proof$/.exec(path);
  if (method === "GET" && proof) return (r) => receiptProofRoute(r, param("id", proof[1]!));
  const checkpoint = /^\/log\/checkpoints\/([^/]+)$/.exec(path);
  if (method === "GET" && checkpoint) return (r) => logCheckpointsRoute(r, param("size", checkpoint[1]!));
  if (method === "GET" && path.startsWith("/log/tile/"))
    return (r) => logTileRoute(r, { params: Promise.resolve({ path: path.slice("/log/tile/".length).split("/") }) });
  // A model id's slash arrives as a segment break or as %2F (the openai SDK's encoding): a catch-all segment either way.
  const model = /^\/api\/v1\/models\/(.+)$/.exec(path);
  if (method === "GET" && model)
    return (r) => modelRoute(r, { params: Promise.resolve({ id: model[1]!.split("/").map(decodeURIComponent) }) });
  const credits = /^\/api\/v1\/credits\/([^/]+)$/.exec(path);
  if (method === "GET" && credits) return (r) => creditsRoute(r, param("pubkey", credits[1]!));
  return null;
}

export interface HttpService {
  url: string;
  close(): Promise<void>;
}

/** Serves the routes on 127.0.0.1 on a free port. */
export async function startHttpService(): Promise<HttpService> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const route = routeFor(req.method ?? "GET", (req.url ?? "/").split("?")[0]!);
      if (!route)
        return void res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"error":{"message":"no such route","type":"invalid_request_error","param":null,"code":"not_found"}}');
      void answerWithRoute(route, req, Buffer.concat(chunks), res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface ServedStack {
  stack: PaidStack;
  service: HttpService;
  close(): Promise<void>;
}

/**
 * A paid stack served over HTTP, its public origin (SERVICE_BASE_URL) being the address it is served at, as in a real
 * deployment: signed prepaid requests name it, and its did:web (the x402 offers' and receipts' key) is its host.
 */
export async function startServedStack(opts: Parameters<typeof startPaidStack>[0] = {}): Promise<ServedStack> {
  const stack = await startPaidStack(opts);
  const service = await startHttpService();
  const restore = setEnv({ SERVICE_BASE_URL: service.url });
  return {
    stack,
    service,
    async close() {
      await restore();
      await service.close();
      await stack.close();
    },
  };
}
