import { corsPreflight, withCors } from "@/server/http/cors";
import { handleRoute } from "@/server/runtime/handle-route";
import { findReceipt } from "@/server/receipts/find-receipt";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

export const GET = withCors(
  ["GET"],
  handleRoute<{ params: Promise<{ id: string }> }>(async (_req, { params }) => {
    const { id } = await params;
    return Response.json(await findReceipt((await routeRuntime()).db, id), {
      headers: { "cache-control": "public, max-age=300" },
    });
  }),
);

export const OPTIONS = corsPreflight(["GET"]);

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "OPTIONS"]);
