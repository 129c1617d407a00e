// Tells a database that could not be reached, that dropped the connection mid-call (a failover, a restart, an
// operator's pg_terminate_backend) or that was too busy to start a transaction in time, from every other failure: the first is the service's state, not the request's
// fault, and worth a retry. It reads the shapes pg, @prisma/adapter-pg and Prisma give such an error.
import "server-only";

/** SQLSTATEs of a lost or refused connection: class 08 (connection exception) and the server shutting sessions down. */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** @prisma/adapter-pg's kinds for a socket that could not connect or was closed. */
const UNAVAILABLE_ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/**
 * Prisma's codes for a database it cannot reach, that timed out, or that closed the connection; and for one too busy
 * to take the work now: no pooled connection in time (P2024), or a transaction that could not start within its wait
 * or ran past its time limit (P2028, after which the database rolled it back). Each is worth the same retry.
 */
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1017", "P2024", "P2028"]);
/**
 * Node's socket error codes for a peer that is gone or refuses. Only read on an error known to come from the database
 * (see `databaseError`): an upstream's or an RPC's socket error carries the same codes.
 */
const UNAVAILABLE_SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);
/**
 * pg raises these as plain Errors with no code, so their text is all there is to read: a socket that closed under a
 * client, a client used after that, and a pool that could not connect in time.
 */
const PG_CONNECTION_MESSAGES = [/^Connection terminated/, /^Client has encountered a connection error and is not queryable/, /^timeout exceeded when trying to connect/];

/** The depth to which wrapped errors (`cause`, Prisma's driver adapter error) are followed. */
const MAX_DEPTH = 6;

/** True when `err`, or an error it wraps, says the database is unreachable or dropped the connection. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return unavailable(err, 0);
}

function unavailable(err: unknown, depth: number): boolean {
  if (typeof err !== "object" || err === null || depth > MAX_DEPTH) return false;
  const e = err as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
  for (const code of [e.code, e.originalCode]) {
    if (typeof code !== "string") continue;
    if (UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    if (UNAVAILABLE_PRISMA_CODES.has(code)) return true;
  }
  if (typeof e.kind === "string" && UNAVAILABLE_ADAPTER_KINDS.has(e.kind)) return true;
  if (err instanceof DatabaseUnavailableError) return true;
  if (err instanceof Error && typeof e.message === "string" && PG_CONNECTION_MESSAGES.some((m) => m.test(e.message as string))) return true;
  return unavailable(e.meta?.driverAdapterError, depth + 1) || unavailable(e.cause, depth + 1);
}

/** A database's socket error, marked as the database's by the code that got it straight from pg. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

/**
 * `err`, thrown by a pg query, marked as the database's when it is a socket error (pg passes Node's own error through),
 * so `isDatabaseUnavailable` can tell it from another peer's socket error with the same code.
 */
export function databaseError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNAVAILABLE_SOCKET_CODES.has(code) ? new DatabaseUnavailableError("the database connection failed", { cause: err }) : err;
}
