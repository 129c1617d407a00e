import { serviceDidDocument } from "@/server/keys/did-web-document";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { usableOperatorKeypair, usableOperatorKeys } from "@/server/keys/operator-key-resource";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () => {
    const rt = await routeRuntime();
    return Response.json(serviceDidDocument(rt.config.baseUrl, usableOperatorKeypair(rt), usableOperatorKeys(rt).retired), { headers: { "content-type": "application/did+json", "cache-control": "public, max-age=300" } });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);
