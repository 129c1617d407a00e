// The hot API routes, served by the front server in production straight from their route handlers as Next built them,
// without Next's request pipeline: measured on the prepaid route (`npm run bench:http`), that pipeline cost more CPU
// per call than the handler itself. The receipt log's read routes go the same way, because that pipeline changes their
// answers: it adds `Vary: rsc, next-router-state-tree, …` (splitting every cache's copy of an immutable tile) and drops
// a route's Content-Encoding (so a tile could not be served gzip-encoded). The handlers are the build's own route
// modules, required from the build folder, so they share every module, cache and global with what Next serves; every
// other path, and every method a route does not export, still goes through Next. Loaded outside the react-server
// condition: imports nothing server-only.
import { createRequire } from "node:module";
import path from "node:path";
import { PAID_ROUTE_PATHS, PAID_ROUTES } from "./paid-route-paths";

/** The paths served directly: the paid routes the registry marks direct, the prepaid route and the hosted verifier. */
const DIRECT_API_PATHS = [
  ...PAID_ROUTES.filter((r) => PAID_ROUTE_PATHS[r].direct).map((r) => PAID_ROUTE_PATHS[r].path),
  "/api/v1/inference",
  "/api/verify",
];

/** The receipt log's read routes served directly, as their route folders spell them (a last `[param]` or `[...param]`). */
export const DIRECT_LOG_ROUTES = [
  "/log/checkpoint",
  "/log/checkpoints/[size]",
  "/log/key",
  "/log/tile/[...path]",
] as const;

/** Every route served directly, by its route folder. */
export const DIRECT_ROUTES = [...DIRECT_API_PATHS, ...DIRECT_LOG_ROUTES] as const;

export type RouteHandler = (
  req: Request,
  ctx: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>;

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** What a built App Router route module exposes (Next's AppRouteRouteModule, as `next build` writes it). */
interface BuiltRouteModule {
  routeModule?: { ensureUserland?: () => Promise<void>; userland?: Record<string, unknown> };
}

/**
 * The route handlers of DIRECT_ROUTES by route folder and method, from the production build in `distDir`. A path whose
 * module cannot be loaded is left out (Next serves it), and said so through `warn`.
 */
export async function loadDirectApiRoutes(
  distDir: string,
  warn: (line: string) => void,
): Promise<Map<string, Map<string, RouteHandler>>> {
  const require = createRequire(path.join(distDir, "server", "noop.js"));
  const routes = new Map<string, Map<string, RouteHandler>>();
  for (const route of DIRECT_ROUTES) {
    try {
      const built = require(path.join(distDir, "server", "app", route, "route.js")) as BuiltRouteModule;
      await built.routeModule?.ensureUserland?.();
      const userland = built.routeModule?.userland;
      if (!userland) throw new Error("the build's route module has no handlers");
      const methods = new Map<string, RouteHandler>();
      for (const method of METHODS)
        if (typeof userland[method] === "function") methods.set(method, userland[method] as RouteHandler);
      routes.set(route, methods);
    } catch (err) {
      warn(
        `signet: ${route} is served through Next: its built route could not be loaded (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  }
  return routes;
}

/**
 * The params of `pathname` under the route folder `route` (its last segment may be `[param]`, one segment, or
 * `[...param]`, one or more, each decoded as Next decodes them); null when it does not match.
 */
function routeParams(route: string, pathname: string): Record<string, string | string[]> | null {
  const dynamic = /^(.*\/)\[(\.\.\.)?(\w+)\]$/.exec(route);
  if (!dynamic) return route === pathname ? {} : null;
  const [, prefix, catchAll, name] = dynamic as unknown as [string, string, string | undefined, string];
  if (!pathname.startsWith(prefix)) return null;
  const rest = pathname.slice(prefix.length).split("/");
  if (rest.some((s) => s === "") || (!catchAll && rest.length !== 1)) return null;
  try {
    const values = rest.map(decodeURIComponent);
    return { [name]: catchAll ? values : values[0]! };
  } catch {
    return null;
  }
}

/** The handler for this request's path (query string aside) and method; null when Next should serve it. */
export function directHandler(
  routes: Map<string, Map<string, RouteHandler>>,
  method: string | undefined,
  url: string | undefined,
): ((req: Request) => Promise<Response>) | null {
  if (!method || !url) return null;
  const query = url.indexOf("?");
  const pathname = query < 0 ? url : url.slice(0, query);
  for (const [route, methods] of routes) {
    const handler = methods.get(method);
    const params = handler ? routeParams(route, pathname) : null;
    if (handler && params) return (req) => handler(req, { params: Promise.resolve(params) });
  }
  return null;
}
