// Wraps route handlers so every failure becomes a stable error code: no stack trace or err.message reaches a client,
// and an unexpected one is logged to the routes' runtime's logger with the request's id (route-edge.ts): the wrapper
// sits with the route edge in the layer map.
import "server-only";
import { randomUUID } from "node:crypto";
import { toResponse } from "../errors";
import { routeLog } from "./route-edge";

export type RouteHandler<C = unknown> = (req: Request, ctx: C) => Promise<Response>;

/**
 * Runs `handler`, mapping thrown errors through the error table (an unexpected one logged with the request id), and
 * tags every answer with a request id: the handler gets it for requestRuntime.
 */
export function handleRoute<C = unknown>(
  handler: (req: Request, ctx: C, requestId: string) => Promise<Response>,
): RouteHandler<C> {
  return async (req, ctx) => {
    const requestId =
      req.headers
        .get("x-request-id")
        ?.slice(0, 64)
        .replace(/[^\w.-]/g, "") || randomUUID();
    try {
      const res = await handler(req, ctx, requestId);
      res.headers.set("x-request-id", requestId);
      return res;
    } catch (err) {
      return toResponse(err, await routeLog(requestId), requestId);
    }
  };
}
