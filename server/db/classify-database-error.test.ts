import { describe, expect, it } from "vitest";
import {
  databaseError,
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  isPermanentDatabaseError,
} from "./classify-database-error";

/** A pg DatabaseError as the driver raises it for a session the server ended (pg_terminate_backend, a shutdown). */
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: "FATAL" });
}

/** Prisma's shape for a driver error: a known request error whose meta carries the adapter's mapping of it. */
function prismaError(code: string, cause: Record<string, unknown>): Error {
  return Object.assign(new Error("Raw query failed."), {
    name: "PrismaClientKnownRequestError",
    code,
    meta: { driverAdapterError: { name: "DriverAdapterError", cause } },
  });
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: "connect", errno: -111 });
}

describe("isDatabaseUnavailable()", () => {
  it("names a session the server terminated, as pg and as Prisma report it", () => {
    expect(isDatabaseUnavailable(pgError("57P01", "terminating connection due to administrator command"))).toBe(true);
    expect(
      isDatabaseUnavailable(prismaError("P2010", { kind: "postgres", originalCode: "57P01", code: "57P01" })),
    ).toBe(true);
  });

  it("names pg's own errors for a socket that closed under a client, and a client used after that", () => {
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Client has encountered a connection error and is not queryable"))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
  });

  it("names a connection exception (SQLSTATE class 08) and the adapter's unreachable database", () => {
    expect(isDatabaseUnavailable(pgError("08006", "connection failure"))).toBe(true);
    expect(
      isDatabaseUnavailable(prismaError("P2010", { kind: "DatabaseNotReachable", host: "127.0.0.1", port: 5432 })),
    ).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("Can't reach database server"), { code: "P1001" }))).toBe(
      true,
    );
  });

  it("names a database too busy to take the work now: no pooled connection in time, a transaction that could not start or expired", () => {
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("Timed out fetching a new connection from the connection pool."), { code: "P2024" }),
      ),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), {
          code: "P2028",
        }),
      ),
    ).toBe(true);
  });

  it("follows wrapped errors", () => {
    expect(
      isDatabaseUnavailable(new Error("settling failed", { cause: new Error("Connection terminated unexpectedly") })),
    ).toBe(true);
  });

  it("leaves a query's own failure (a constraint, a syntax error) to the generic answer", () => {
    expect(isDatabaseUnavailable(pgError("23505", "duplicate key value violates unique constraint"))).toBe(false);
    expect(isDatabaseUnavailable(prismaError("P2002", { kind: "UniqueConstraintViolation" }))).toBe(false);
    expect(isDatabaseUnavailable(pgError("42601", "syntax error at or near"))).toBe(false);
  });

  it("leaves another peer's socket error (an upstream, an RPC) alone unless the database code marked it", () => {
    const reset = socketError("ECONNRESET");
    expect(isDatabaseUnavailable(new TypeError("fetch failed", { cause: reset }))).toBe(false);
    const marked = databaseError(reset);
    expect(marked).toBeInstanceOf(DatabaseUnavailableError);
    expect(isDatabaseUnavailable(marked)).toBe(true);
  });

  it("rejects malformed input", () => {
    for (const value of [
      undefined,
      null,
      "Connection terminated unexpectedly",
      57,
      { code: 5701 },
      { message: "Connection terminated" },
    ]) {
      expect(isDatabaseUnavailable(value)).toBe(false);
    }
  });

  it("stops at a cycle of causes", () => {
    const a = new Error("a") as Error & { cause?: unknown };
    a.cause = a;
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});

describe("databaseError()", () => {
  it("passes a query's own failure through unchanged, so its SQLSTATE is still read", () => {
    const unique = pgError("23505", "duplicate key");
    expect(databaseError(unique)).toBe(unique);
  });
});

describe("isPermanentDatabaseError()", () => {
  it("names the database refusing data it cannot hold, as pg and as Prisma report it", () => {
    expect(isPermanentDatabaseError(pgError("22P05", "unsupported Unicode escape sequence"))).toBe(true);
    expect(
      isPermanentDatabaseError(prismaError("P2010", { kind: "postgres", originalCode: "22021", code: "22021" })),
    ).toBe(true);
    expect(
      isPermanentDatabaseError(
        Object.assign(new Error("Raw query failed."), { code: "P2010", meta: { code: "22P02" } }),
      ),
    ).toBe(true);
    expect(isPermanentDatabaseError(pgError("54000", "row is too big"))).toBe(true);
    expect(isPermanentDatabaseError(pgError("23505", "duplicate key value violates unique constraint"))).toBe(true);
    expect(isPermanentDatabaseError(pgError("42601", "syntax error at or near"))).toBe(true);
    expect(isPermanentDatabaseError(Object.assign(new Error("value too long"), { code: "P2000" }))).toBe(true);
  });

  it("follows wrapped errors", () => {
    expect(
      isPermanentDatabaseError(
        new Error("capture failed", { cause: pgError("22P05", "unsupported Unicode escape sequence") }),
      ),
    ).toBe(true);
  });

  it("leaves a lost connection, a busy database and a passing conflict to a retry", () => {
    expect(isPermanentDatabaseError(pgError("57P01", "terminating connection due to administrator command"))).toBe(
      false,
    );
    expect(isPermanentDatabaseError(pgError("08006", "connection failure"))).toBe(false);
    expect(isPermanentDatabaseError(pgError("40001", "could not serialize access"))).toBe(false);
    expect(isPermanentDatabaseError(pgError("40P01", "deadlock detected"))).toBe(false);
    expect(isPermanentDatabaseError(pgError("55P03", "lock not available"))).toBe(false);
    expect(isPermanentDatabaseError(Object.assign(new Error("Transaction API error"), { code: "P2028" }))).toBe(false);
    expect(isPermanentDatabaseError(new Error("Connection terminated unexpectedly"))).toBe(false);
    expect(isPermanentDatabaseError(new TypeError("x is undefined"))).toBe(false);
  });

  it("rejects malformed input", () => {
    for (const value of [undefined, null, "22P05", 22, { code: 22005 }, { code: "2" }, { code: "22P0" }])
      expect(isPermanentDatabaseError(value)).toBe(false);
  });
});
