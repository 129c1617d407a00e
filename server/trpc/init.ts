// tRPC v11 setup: the context carries the runtime, its database and the operator session read from the cookie;
// `operatorProcedure` refuses without a session (401, no data) and checks Origin on mutations. Errors are formatted
// from the same table as the REST routes (server/errors/index.ts): a stable code, never an internal message.
import "server-only";
import { initTRPC, TRPCError } from "@trpc/server";
import type { DbClient } from "../db";
import type { Runtime } from "../context/runtime";
import { AppError, ERROR_STATUS } from "../errors";
import { readSession, type OperatorSession } from "../operator-auth/session";

export interface TrpcContext {
  runtime: Runtime;
  db: DbClient;
  session: OperatorSession | null;
  origin: string | null;
}

/**
 * Most calls one tRPC request may batch. Each call can be a database lookup, and the explorer's procedures need no
 * login; the dashboard batches at most 7 queries at once.
 */
export const MAX_TRPC_BATCH_SIZE = 10;

/** Builds the context for one request to `runtime`. */
export async function createTrpcContext(runtime: Runtime, req: Request): Promise<TrpcContext> {
  const session = await readSession(runtime.db, runtime.config, req.headers.get("cookie"), runtime.clock.now());
  return { runtime, db: runtime.db, session, origin: req.headers.get("origin") };
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause;
    if (cause instanceof AppError) {
      return {
        ...shape,
        message: cause.message,
        data: { ...shape.data, code: shape.data.code, error: cause.code, httpStatus: cause.status, stack: undefined },
      };
    }
    if (error.code === "INTERNAL_SERVER_ERROR") {
      // Logged to the request's runtime; an error building the context itself (no runtime) reaches the route's caller.
      ctx?.runtime.log.error({ err: error }, "trpc internal error");
      return {
        ...shape,
        message: "internal error",
        data: { ...shape.data, error: "internal_error", stack: undefined },
      };
    }
    return { ...shape, data: { ...shape.data, stack: undefined } };
  },
});

export const router = t.router;

/** Maps AppErrors thrown by services to tRPC errors with the table's HTTP status. */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const status = ERROR_STATUS[result.error.cause.code];
    const code =
      status === 401
        ? "UNAUTHORIZED"
        : status === 403
          ? "FORBIDDEN"
          : status === 404
            ? "NOT_FOUND"
            : status < 500
              ? "BAD_REQUEST"
              : "INTERNAL_SERVER_ERROR";
    throw new TRPCError({ code, message: result.error.cause.message, cause: result.error.cause });
  }
  return result;
});

/**
 * Same-origin check for mutations: the Origin must be the configured base URL's (SameSite=Strict is the first line).
 * SECURITY: never the request's Host header, which whoever sends the request writes.
 */
function sameOrigin(ctx: TrpcContext): boolean {
  if (!ctx.origin) return false;
  try {
    return new URL(ctx.origin).origin === new URL(ctx.runtime.config.baseUrl).origin;
  } catch {
    return false;
  }
}

/** Procedures for signed-in operators only. */
export const operatorProcedure = t.procedure.use(appErrors).use(async ({ ctx, type, next }) => {
  // SECURITY: every operator query and mutation checks the session on the server.
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in as an operator" });
  if (type === "mutation" && !sameOrigin(ctx))
    throw new TRPCError({ code: "FORBIDDEN", message: "cross-origin request refused" });
  return next({ ctx: { ...ctx, session: ctx.session } });
});

/** Procedures anyone may call (the explorer); AppErrors still map through the table. */
export const publicProcedure = t.procedure.use(appErrors);
