import { serviceDidDocument } from "@/server/discovery/did-web-document";
import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/http/handle-route";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute(async () => Response.json(serviceDidDocument(), { headers: { "content-type": "application/did+json", "cache-control": "public, max-age=300" } })),
);

export const OPTIONS = corsPreflight(["GET"]);
