// A pool so busy that a transaction cannot start within its wait (Prisma's P2028), or one held past its time limit:
// the database is there but cannot take the work now. The answer is 503 database_unavailable with Retry-After, the
// same as a lost connection, never a 500; and nothing of the refused transaction was written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorObjectOf, toErrorBody } from "../../errors";
import { isDatabaseUnavailable } from "../../db/classify-database-error";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { createLogger } from "../../log";

/** Where the errors are logged: nowhere. */
const QUIET_LOG = createLogger("silent");

let tdb: TestDatabase;

beforeAll(async () => {
  // One connection: a transaction that holds it leaves none for another.
  tdb = await createTestDatabase(1);
});
afterAll(async () => tdb?.drop());

describe("a transaction the database cannot take in time", () => {
  it("cannot start within its wait: 503 database_unavailable with Retry-After, and it wrote nothing", async () => {
    // The pool's one connection is held, inside a transaction, until the refused one has been answered.
    let inside!: () => void;
    const holdsConnection = new Promise<void>((r) => (inside = r));
    let letGo!: () => void;
    const released = new Promise<void>((r) => (letGo = r));
    const holding = tdb.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT 1`;
        inside();
        await released;
      },
      { timeout: 60_000 },
    );
    await holdsConnection;
    const refused = await tdb.prisma
      .$transaction(
        async (tx) => tx.$executeRaw`INSERT INTO settings (key, value, updated_at) VALUES ('never', 'written', now())`,
        { maxWait: 50 },
      )
      .then(
        () => null,
        (err: unknown) => err,
      );
    letGo();
    await holding;
    expect((refused as { code?: string } | null)?.code).toBe("P2028");
    expect(isDatabaseUnavailable(refused)).toBe(true);
    const { status, body, headers } = toErrorBody(refused, QUIET_LOG, "req-1");
    expect(status).toBe(503);
    expect(errorObjectOf(body).code).toBe("database_unavailable");
    expect(headers["retry-after"]).toMatch(/^\d+$/);
    expect(await tdb.prisma.$queryRaw`SELECT count(*)::int AS n FROM settings WHERE key = 'never'`).toEqual([{ n: 0 }]);
  });

  it("held past its time limit: the same answer, and its writes rolled back", async () => {
    const expired = await tdb.prisma
      .$transaction(
        async (tx) => {
          await tx.$executeRaw`INSERT INTO settings (key, value, updated_at) VALUES ('expired', 'rolled back', now())`;
          // Prisma times an interactive transaction by the wall clock: this one outlives its 100 ms.
          await new Promise((r) => setTimeout(r, 400));
          await tx.$executeRaw`SELECT 1`;
        },
        { timeout: 100 },
      )
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect((expired as { code?: string } | null)?.code).toBe("P2028");
    expect(toErrorBody(expired, QUIET_LOG).status).toBe(503);
    expect(await tdb.prisma.$queryRaw`SELECT count(*)::int AS n FROM settings WHERE key = 'expired'`).toEqual([
      { n: 0 },
    ]);
  });
});
