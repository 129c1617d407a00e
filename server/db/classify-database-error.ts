// Classifies a database failure by what a retry can expect of it, reading the shapes pg, @prisma/adapter-pg and Prisma
// give an error:
// - unavailable: the database could not be reached, dropped the connection mid-call (a failover, a restart, an
//   operator's pg_terminate_backend) or was too busy to start a transaction in time. The service's state, not the
//   request's fault: worth a retry once the database answers.
// - permanent: the database refused the statement itself (data it cannot hold, a constraint, a limit): the same
//   statement fails the same way every time, so it is never retried as a blip.
// Anything else (a deadlock, a serialization failure, an error of unknown shape) is neither: a blip, worth a retry.
import "server-only";

/** SQLSTATEs of a lost or refused connection: class 08 (connection exception) and the server shutting sessions down. */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** @prisma/adapter-pg's kinds for a socket that could not connect or was closed. */
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);
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
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);
/**
 * pg raises these as plain Errors with no code, so their text is all there is to read: a socket that closed under a
 * client, a client used after that, and a pool that could not connect in time.
 */
const PG_CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
];

/** The depth to which wrapped errors (`cause`, Prisma's driver adapter error) are followed. */
const MAX_DEPTH = 6;

/**
 * SQLSTATE classes of a statement the database refuses for what it is, not for when it ran: data exception (22: a
 * value it cannot hold, such as U+0000 or a lone surrogate in text or jsonb, 22P05/22021), integrity constraint
 * violation (23), cardinality violation (21), syntax error or access rule violation (42), program limit exceeded (54:
 * a row or a statement too large), feature not supported (0A), WITH CHECK OPTION violation (44).
 */
const PERMANENT_SQLSTATE_CLASSES = new Set(["0A", "21", "22", "23", "42", "44", "54"]);
/** Prisma's codes for a value the column cannot hold or a constraint refused (its own validation, before SQL). */
const PERMANENT_PRISMA_CODES = new Set([
  "P2000",
  "P2002",
  "P2003",
  "P2004",
  "P2005",
  "P2006",
  "P2007",
  "P2011",
  "P2012",
  "P2019",
  "P2020",
  "P2023",
  "P2033",
]);

/** True when `err`, or an error it wraps, says the database is unreachable or dropped the connection. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return someLayer(err, 0, (e, codes) => {
    if (
      codes.some(
        (code) => UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_PRISMA_CODES.has(code),
      )
    )
      return true;
    if (typeof e.kind === "string" && UNAVAILABLE_ADAPTER_KINDS.has(e.kind)) return true;
    if (e instanceof DatabaseUnavailableError) return true;
    return (
      e instanceof Error &&
      typeof e.message === "string" &&
      PG_CONNECTION_MESSAGES.some((m) => m.test(e.message as string))
    );
  });
}

/**
 * True when `err`, or an error it wraps, is the database refusing the statement for good (see the module comment):
 * sending it again cannot succeed. A lost connection is never permanent.
 */
export function isPermanentDatabaseError(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return false;
  // Prisma wraps a failed raw query as P2010 and a failed model query under its own code: the SQLSTATE inside decides.
  return someLayer(err, 0, (_e, codes) =>
    codes.some(
      (code) =>
        PERMANENT_PRISMA_CODES.has(code) ||
        (/^[0-9A-Z]{5}$/.test(code) && PERMANENT_SQLSTATE_CLASSES.has(code.slice(0, 2))),
    ),
  );
}

type ErrorLayer = {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown; code?: unknown };
};

/** Whether `test` holds for `err` or for an error it wraps (its driver adapter error, its cause), with each layer's codes. */
function someLayer(err: unknown, depth: number, test: (e: ErrorLayer, codes: string[]) => boolean): boolean {
  if (typeof err !== "object" || err === null || depth > MAX_DEPTH) return false;
  const e = err as ErrorLayer;
  const codes = [e.code, e.originalCode, e.meta?.code].filter((c): c is string => typeof c === "string");
  if (test(e, codes)) return true;
  return someLayer(e.meta?.driverAdapterError, depth + 1, test) || someLayer(e.cause, depth + 1, test);
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
  return typeof code === "string" && UNAVAILABLE_SOCKET_CODES.has(code)
    ? new DatabaseUnavailableError("the database connection failed", { cause: err })
    : err;
}
