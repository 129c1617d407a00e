// Wraps route handlers so every failure becomes a stable error code: no stack trace or err.message reaches a client.
import "server-only";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { AppError, toResponse } from "../errors";

export type RouteHandler<C = unknown> = (req: Request, ctx: C) => Promise<Response>;

/** Runs `handler`, mapping thrown errors through the error table, and tags every answer with a request id. */
export function handleRoute<C = unknown>(handler: (req: Request, ctx: C, requestId: string) => Promise<Response>): RouteHandler<C> {
  return async (req, ctx) => {
    const requestId = req.headers.get("x-request-id")?.slice(0, 64).replace(/[^\w.-]/g, "") || randomUUID();
    try {
      const res = await handler(req, ctx, requestId);
      res.headers.set("x-request-id", requestId);
      return res;
    } catch (err) {
      return toResponse(err, requestId);
    }
  };
}

/** Validates `value` with a zod schema; the 400 names the first offending field in `detail`. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : "body";
  throw new AppError("invalid_request", `${field}: ${issue?.message ?? "invalid"}`, { detail: field });
}
