import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { createTrpcContext, MAX_TRPC_BATCH_SIZE } from "@/server/trpc/init";
import { methodsNotAllowed } from "@/server/runtime/unserved-routes";
import { routeRuntime } from "@/server/runtime/route-edge";

export const dynamic = "force-dynamic";

// A larger batch is refused with 400 before any procedure runs. No CORS headers here: the dashboard is same-origin.
const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH_SIZE,
    createContext: async () => createTrpcContext(await routeRuntime(), req),
  });

export { handler as GET, handler as POST };

export const { PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "POST"]);
