// Applies prisma/migrations/*/migration.sql at start-up (Prisma 7's migrate engine cannot run offline here, STACK.md).
// Each migration runs in its own transaction and is recorded in Prisma's own `_prisma_migrations` table with
// checksum = sha256 of the file, so a machine that has the engine sees the database as up to date. A database that
// records a migration this release does not have, or one whose file changed, is refused before anything is applied
// (plan-migrations.ts).
import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { planMigrations } from "./plan-migrations";

/** The few SQL operations the applier needs, over `pg` or PGlite. */
export interface SqlRunner {
  /** Runs one or more statements with no parameters. */
  exec(sql: string): Promise<void>;
  /** Runs one parameterised query and returns its rows. */
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** Every entry point (Next, the CLI, tests) runs from the project root; bundlers leave no reliable module path. */
export const MIGRATIONS_DIR = path.resolve(process.cwd(), "prisma/migrations");
/** Arbitrary constant key for pg_advisory_lock, so concurrent starters apply each migration once. */
export const MIGRATION_LOCK_KEY = 72_910_402;

/** Prisma's own record of applied migrations, as Prisma Migrate creates it (the CLI engine is offline here). */
export const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** The migrations on disk, in name (timestamp) order. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export class MigrationChecksumError extends Error {
  override name = "MigrationChecksumError";
}

/** The database records applied migrations this release does not have: a newer release migrated it. */
export class MigrationsFromNewerReleaseError extends Error {
  override name = "MigrationsFromNewerReleaseError";
  constructor(readonly migrations: readonly string[]) {
    const [one, them] = migrations.length === 1 ? ["a migration", "it"] : ["migrations", "them"];
    super(
      `the database records ${one} this release does not have (${migrations.join(", ")}): a newer release applied ${them}, and this one ` +
        `would serve a schema it was not written for; run the release that applied ${them}, or restore the backup taken before the upgrade`,
    );
  }
}

/**
 * Applies pending migrations; returns the names applied. `lock` serialises concurrent appliers (PostgreSQL). Throws
 * MigrationsFromNewerReleaseError or MigrationChecksumError, having applied nothing, for a database it must not serve.
 */
export async function applyMigrations(runner: SqlRunner, opts: { lock: boolean; dir?: string }): Promise<string[]> {
  const migrations = readMigrations(opts.dir);
  if (opts.lock) await runner.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  try {
    await runner.exec(CREATE_MIGRATIONS_TABLE);
    const applied = await runner.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`,
    );
    const plan = planMigrations(
      applied.map((r) => ({ name: r.migration_name, checksum: r.checksum })),
      migrations,
    );
    if (!plan.ok && plan.reason === "unknown_migrations") throw new MigrationsFromNewerReleaseError(plan.names);
    if (!plan.ok) {
      const one = plan.names.length === 1;
      throw new MigrationChecksumError(
        `${one ? "migration" : "migrations"} ${plan.names.join(", ")} ${one ? "was" : "were"} changed after ${one ? "it was" : "they were"} applied (checksum mismatch)`,
      );
    }
    const newlyApplied: string[] = [];
    for (const m of plan.pending) {
      await runner.exec("BEGIN");
      try {
        await runner.exec(m.sql);
        await runner.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           VALUES ($1, $2, now(), $3, 1, now())`,
          [randomUUID(), m.checksum, m.name],
        );
        await runner.exec("COMMIT");
      } catch (err) {
        await runner.exec("ROLLBACK");
        throw err;
      }
      newlyApplied.push(m.name);
    }
    return newlyApplied;
  } finally {
    if (opts.lock) await runner.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
  }
}
