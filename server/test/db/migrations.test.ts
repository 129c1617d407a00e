import { mkdtempSync, mkdirSync, writeFileSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyMigrations,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_DIR,
  MigrationChecksumError,
  MigrationsFromNewerReleaseError,
  readMigrations,
} from "../../db/apply-migrations";
import { isUniqueViolation, openPglite, openPostgres } from "../../db";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { migratedPgliteDir } from "../support/pglite-template";

describe("applyMigrations() on PostgreSQL", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    // Migrated here, not copied from the tests' template: this is the first start of a PostgreSQL deployment.
    tdb = await createTestDatabase(2, { fresh: true });
  });
  afterAll(async () => tdb?.drop());

  const withClient = async <T>(fn: (c: pg.Client) => Promise<T>) => {
    const c = new pg.Client({ connectionString: tdb.url });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const runner = (c: pg.Client) => ({
    exec: async (sql: string) => void (await c.query(sql)),
    query: async <T>(sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows as T[],
  });

  it("records every migration once with its sha256 checksum, and is idempotent", async () => {
    const rows = await withClient((c) =>
      c.query(`SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`),
    );
    expect(rows.rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum })));
    expect(await withClient((c) => applyMigrations(runner(c), { lock: true }))).toEqual([]);
  });

  it("applies each migration exactly once under concurrent appliers", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-mig-"));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(path.join(dir, "29990101000000_probe"));
    writeFileSync(
      path.join(dir, "29990101000000_probe", "migration.sql"),
      'CREATE TABLE "probe" ("id" INTEGER PRIMARY KEY);',
    );
    const results = await Promise.all(
      [1, 2, 3].map(() => withClient((c) => applyMigrations(runner(c), { lock: true, dir }))),
    );
    expect(results.flat()).toEqual(["29990101000000_probe"]);
  });

  it("refuses a migration whose file changed after it was applied", async () => {
    // A database of its own: the one above records the probe migration, which this folder does not have.
    const own = await createTestDatabase(1);
    try {
      const dir = mkdtempSync(path.join(tmpdir(), "signet-mig-"));
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      const first = readMigrations(dir)[0]!;
      writeFileSync(path.join(dir, first.name, "migration.sql"), `${first.sql}\n-- edited`);
      const c = new pg.Client({ connectionString: own.url });
      await c.connect();
      try {
        await expect(applyMigrations(runner(c), { lock: true, dir })).rejects.toThrow(
          new MigrationChecksumError(`migration ${first.name} was changed after it was applied (checksum mismatch)`),
        );
      } finally {
        await c.end();
      }
    } finally {
      await own.drop();
    }
  });

  it("refuses a database a newer release migrated, naming the migrations it does not have, and applies nothing", async () => {
    const own = await createTestDatabase(1);
    try {
      const c = new pg.Client({ connectionString: own.url });
      await c.connect();
      try {
        // What a newer release's migrator left: two migrations this release does not have.
        for (const name of ["29991231000000_newer", "29991230000000_newer_still"]) {
          await c.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (gen_random_uuid(), 'x', now(), $1, 1)`,
            [name],
          );
        }
        // A migration this release has and the database has not: it must not be applied either.
        const dir = mkdtempSync(path.join(tmpdir(), "signet-mig-"));
        cpSync(MIGRATIONS_DIR, dir, { recursive: true });
        mkdirSync(path.join(dir, "29990101000000_pending"));
        writeFileSync(
          path.join(dir, "29990101000000_pending", "migration.sql"),
          'CREATE TABLE "pending_probe" ("id" INTEGER PRIMARY KEY);',
        );
        const refused = await applyMigrations(runner(c), { lock: true, dir }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(MigrationsFromNewerReleaseError);
        expect((refused as Error).message).toBe(
          "the database records migrations this release does not have (29991230000000_newer_still, 29991231000000_newer): a newer release applied them, and this one would serve a schema it was not written for; run the release that applied them, or restore the backup taken before the upgrade",
        );
        expect((await c.query(`SELECT to_regclass('pending_probe') AS t`)).rows).toEqual([{ t: null }]);
        expect(
          (await c.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '29990101000000_pending'`)).rows,
        ).toEqual([]);
        // The lock was released: another applier is not held up behind the refusal.
        const held = await c.query(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = current_database() AND l.objid = $1`,
          [MIGRATION_LOCK_KEY],
        );
        expect(held.rows).toEqual([{ n: 0 }]);
      } finally {
        await c.end();
      }
      // The server's own open refuses it the same way: it serves nothing from that database.
      await expect(openPostgres(own.url, 1)).rejects.toBeInstanceOf(MigrationsFromNewerReleaseError);
    } finally {
      await own.drop();
    }
  });

  it("reports a duplicate key as a unique violation", async () => {
    await tdb.prisma.setting.create({ data: { key: "K", value: "1" } });
    const err = await tdb.prisma.setting.create({ data: { key: "K", value: "2" } }).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(new Error("other"))).toBe(false);
  });

  it("refuses a negative balance at the database", async () => {
    await tdb.prisma.balance.create({ data: { agentPubkey: "a", network: "n", units: 5n } });
    await expect(
      tdb.prisma.balance.update({
        where: { agentPubkey_network: { agentPubkey: "a", network: "n" } },
        data: { units: { decrement: 6n } },
      }),
    ).rejects.toThrow();
  });
});

describe("openPglite()", () => {
  it("migrates, round-trips a setting, reports unique violations, and keeps data across reopen", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-pglite-"));
    const first = await openPglite(dir);
    await first.prisma.setting.create({ data: { key: "X402_FLAT_PRICE_USDC", value: "0.001" } });
    const dup = await first.prisma.setting
      .create({ data: { key: "X402_FLAT_PRICE_USDC", value: "0.002" } })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(dup)).toBe(true);
    await first.close();
    const again = await openPglite(dir);
    expect((await again.prisma.setting.findUnique({ where: { key: "X402_FLAT_PRICE_USDC" } }))?.value).toBe("0.001");
    await again.close();
  });
});

describe("openPglite() on a database a newer release migrated", () => {
  it("refuses to open it, naming the migration", async () => {
    const dir = await migratedPgliteDir(mkdtempSync(path.join(tmpdir(), "signet-pglite-newer-")));
    const first = await openPglite(dir);
    await first.prisma
      .$executeRaw`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (gen_random_uuid(), 'x', now(), '29991231000000_newer', 1)`;
    await first.close();
    await expect(openPglite(dir)).rejects.toThrow(new MigrationsFromNewerReleaseError(["29991231000000_newer"]));
  });
});

describe("openPglite() locking", () => {
  it("refuses a second opener of the same folder while the first is open, and allows it after close", async () => {
    const dir = await migratedPgliteDir(mkdtempSync(path.join(tmpdir(), "signet-pglite-lock-")));
    const first = await openPglite(dir);
    // A lock held by another live process (our parent stands in for it).
    writeFileSync(path.join(dir, "signet.lock"), String(process.ppid));
    await expect(openPglite(dir)).rejects.toThrow(/in use by process/);
    writeFileSync(path.join(dir, "signet.lock"), String(process.pid));
    await first.close();
    const second = await openPglite(dir);
    await second.close();
  });
});
