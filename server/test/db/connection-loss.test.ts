// A PostgreSQL connection the server ends (a failover, a restart, pg_terminate_backend) while a client holds it: the
// client's 'error' event is caught, the work on it fails as a rejected promise, and nothing reaches the process as an
// uncaught exception.
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openPostgres } from "../../db";
import { MIGRATION_LOCK_KEY } from "../../db/apply-migrations";
import { catchPoolErrors } from "../../db/catch-connection-errors";
import { isDatabaseUnavailable } from "../../db/classify-database-error";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

let tdb: TestDatabase;
let admin: pg.Client;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => void uncaught.push(err);

beforeAll(async () => {
  tdb = await createTestDatabase(2);
  admin = new pg.Client({ connectionString: tdb.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await tdb?.drop();
});
beforeEach(() => {
  uncaught.length = 0;
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
});
afterEach(() => {
  process.off("uncaughtException", onUncaught);
  process.off("unhandledRejection", onUncaught);
});

/** Ends every other session on the test's own database; the count ended. */
async function terminateOthers(): Promise<number> {
  const res = await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return res.rowCount ?? 0;
}

/** Resolves once a session on the test's database waits on an advisory lock. */
async function someoneWaitsOnAdvisoryLock(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("nobody waited on the advisory lock");
}

const settle = () => new Promise((r) => setTimeout(r, 100));

describe("openPostgres()", () => {
  it("rejects with a database-unavailable error when its connection drops while it waits for the migration lock", async () => {
    await admin.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      const opening = openPostgres(tdb.url, 2);
      const outcome = opening.then(
        () => null,
        (err: unknown) => err,
      );
      await someoneWaitsOnAdvisoryLock();
      expect(await terminateOthers()).toBeGreaterThan(0);
      const err = await outcome;
      expect(isDatabaseUnavailable(err)).toBe(true);
      await settle();
      expect(uncaught).toEqual([]);
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  }, 15_000);
});

describe("catchPoolErrors()", () => {
  it("keeps a checked-out client's dropped connection from ending the process, and the pool discards that client", async () => {
    const pool = new pg.Pool({ connectionString: tdb.url, max: 2 });
    const caught: Error[] = [];
    catchPoolErrors(pool, (err) => caught.push(err));
    try {
      // Held between two statements of a transaction, as an advisory-lock holder holds it.
      const held = await pool.connect();
      await held.query("BEGIN");
      await held.query("SELECT pg_advisory_xact_lock(1)");
      const idle = await pool.connect();
      idle.release();
      expect(await terminateOthers()).toBe(2);
      await settle();
      expect(uncaught).toEqual([]);
      expect(caught.map((e) => e.message)).toEqual(
        expect.arrayContaining([expect.stringMatching(/terminating connection|Connection terminated/)]),
      );
      const next = await held.query("SELECT 1").then(
        () => null,
        (err: unknown) => err,
      );
      expect(isDatabaseUnavailable(next)).toBe(true);
      held.release();
      expect(pool.totalCount).toBe(0);
      // The pool connects afresh: the database is back for the next caller.
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  }, 15_000);
});
