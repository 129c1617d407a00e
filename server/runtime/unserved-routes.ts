// The answers for what no route serves: a path under /api that matches no route is 404 not_found, and a method a route
// does not serve is 405 method_not_allowed with an Allow header, both in the error table's JSON shape (never Next's
// HTML page or an empty body, which clients written for OpenAI-shaped APIs cannot parse).
import "server-only";
import { AppError } from "../errors";
import { handleRoute, type RouteHandler } from "./handle-route";

/** The methods a route may leave unserved. OPTIONS is left to Next, which answers it (204 with Allow) for every route. */
const REFUSABLE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
const ALL_METHODS = [...REFUSABLE_METHODS, "OPTIONS"] as const;

export type HttpMethod = (typeof ALL_METHODS)[number];

/** The methods a route serving `S` refuses: Next answers HEAD from a route's GET, so a GET route serves HEAD too. */
export type RefusedMethod<S extends HttpMethod> = Exclude<
  (typeof REFUSABLE_METHODS)[number],
  S | (S extends "GET" ? "HEAD" : never)
>;

/** The Allow header of a route serving `served`: HEAD with GET, and OPTIONS always (Next answers it). */
export function allowHeader(served: readonly HttpMethod[]): string {
  if (served.length === 0 || served.some((m) => !(ALL_METHODS as readonly string[]).includes(m)))
    throw new TypeError("served: one or more HTTP methods");
  const allowed = new Set<HttpMethod>([...served, "OPTIONS"]);
  if (allowed.has("GET")) allowed.add("HEAD");
  return ALL_METHODS.filter((m) => allowed.has(m)).join(", ");
}

/**
 * Handlers for every method a route serving `served` does not: each answers 405 method_not_allowed with `Allow`.
 * A route exports them beside its own: `export const { PUT, PATCH, DELETE } = methodsNotAllowed(["GET", "OPTIONS"]);`
 */
export function methodsNotAllowed<const S extends HttpMethod>(
  served: readonly S[],
): Record<RefusedMethod<S>, RouteHandler> {
  const allow = allowHeader(served);
  const refuse = handleRoute(async (req) => {
    throw new AppError(
      "method_not_allowed",
      `${req.method} is not served here; this path serves ${allow}`,
      {},
      { allow },
    );
  });
  const handlers: Partial<Record<string, RouteHandler>> = {};
  for (const method of REFUSABLE_METHODS) if (!allow.split(", ").includes(method)) handlers[method] = refuse;
  return handlers as Record<RefusedMethod<S>, RouteHandler>;
}

/** The handler for a path under /api that no route matches: 404 not_found, for every method. */
export const apiRouteNotFound: RouteHandler = handleRoute(async () => {
  throw new AppError("not_found", "no such API route; the API is described at /api/v1/openapi.json");
});
