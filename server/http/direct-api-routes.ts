// The hot API routes, served by the front server in production straight from their route handlers as Next built them,
// without Next's request pipeline: measured on the prepaid route (`npm run bench:http`), that pipeline cost more CPU
// per call than the handler itself. The handlers are the build's own route modules, required from the build folder,
// so they share every module, cache and global with what Next serves; every other path, and every method a route
// does not export, still goes through Next. Loaded outside the react-server condition: imports nothing server-only.
import { createRequire } from "node:module";
import path from "node:path";

/** The paths served directly: the paid chat route, the prepaid route and the hosted verifier. */
export const DIRECT_API_PATHS = ["/api/v1/chat/completions", "/api/v1/inference", "/api/verify"] as const;

export type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** What a built App Router route module exposes (Next's AppRouteRouteModule, as `next build` writes it). */
interface BuiltRouteModule {
  routeModule?: { ensureUserland?: () => Promise<void>; userland?: Record<string, unknown> };
}

/**
 * The route handlers of DIRECT_API_PATHS by path and method, from the production build in `distDir`. A path whose
 * module cannot be loaded is left out (Next serves it), and said so through `warn`.
 */
export async function loadDirectApiRoutes(distDir: string, warn: (line: string) => void): Promise<Map<string, Map<string, RouteHandler>>> {
  const require = createRequire(path.join(distDir, "server", "noop.js"));
  const routes = new Map<string, Map<string, RouteHandler>>();
  for (const route of DIRECT_API_PATHS) {
    try {
      const built = require(path.join(distDir, "server", "app", route, "route.js")) as BuiltRouteModule;
      await built.routeModule?.ensureUserland?.();
      const userland = built.routeModule?.userland;
      if (!userland) throw new Error("the build's route module has no handlers");
      const methods = new Map<string, RouteHandler>();
      for (const method of METHODS) if (typeof userland[method] === "function") methods.set(method, userland[method] as RouteHandler);
      routes.set(route, methods);
    } catch (err) {
      warn(`signet: ${route} is served through Next: its built route could not be loaded (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  return routes;
}

const NO_PARAMS = { params: Promise.resolve({}) };

/** The handler for this request's path (exact, query string aside) and method; null when Next should serve it. */
export function directHandler(routes: Map<string, Map<string, RouteHandler>>, method: string | undefined, url: string | undefined): ((req: Request) => Promise<Response>) | null {
  if (!method || !url) return null;
  const query = url.indexOf("?");
  const handler = routes.get(query < 0 ? url : url.slice(0, query))?.get(method);
  return handler ? (req) => handler(req, NO_PARAMS) : null;
}
