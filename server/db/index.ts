// The database: PostgreSQL through @prisma/adapter-pg when DATABASE_URL is set, else embedded PGlite under the data
// dir. Opened and migrated by whoever builds a runtime (never at import time: `next build` evaluates route modules).
// Only ONE process may open a PGlite folder (two lose writes silently): `npm run dev` leaves it to the Next server.
import "server-only";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, Prisma } from "../generated/prisma/client";
import type { Config } from "../env";
import { applyMigrations, type SqlRunner } from "./apply-migrations";
import { registerHotPool } from "./hot-query";
import { catchClientErrors, catchPoolErrors, type ConnectionErrorSink } from "./catch-connection-errors";
import { logEvent, type Logger } from "../log";

export type { Payment } from "../generated/prisma/client";
export { Prisma, PrismaClient };

/** The client, or a transaction's client: every ledger function accepts either. */
export type DbClient = PrismaClient;
export type DbTransaction = Prisma.TransactionClient;

/** Pool size per process for PostgreSQL; the 2-core machine gains nothing from more. */
const DEFAULT_POOL_SIZE = 10;

export interface OpenDb {
  prisma: PrismaClient;
  close(): Promise<void>;
}

/**
 * Opens and migrates the database `cfg` names: PostgreSQL at DATABASE_URL, else PGlite under the data dir. A dropped
 * connection is logged to `log`.
 */
export function openDatabase(cfg: Pick<Config, "DATABASE_URL" | "dataDir">, log: Logger): Promise<OpenDb> {
  return cfg.DATABASE_URL
    ? openPostgres(cfg.DATABASE_URL, DEFAULT_POOL_SIZE, log)
    : openPglite(path.join(cfg.dataDir, "pglite"));
}

/**
 * Opens and migrates a PostgreSQL database by URL. A connection the server drops is logged to `log` (`db.connection_error`);
 * with none (a test's or a tool's database) it is only discarded.
 */
export async function openPostgres(
  url: string,
  poolSize = DEFAULT_POOL_SIZE,
  log: Logger | null = null,
): Promise<OpenDb> {
  const logConnectionError: ConnectionErrorSink = (err) => {
    if (log) logEvent(log, "db.connection_error", { reason: err.message.slice(0, 200) }, "warn");
  };
  const pg = await import("pg");
  const admin = new pg.default.Client({ connectionString: url });
  // Dropped while migrating (holding the migration lock): its query rejects and the open fails; never an uncaught error.
  catchClientErrors(admin, logConnectionError);
  await admin.connect();
  try {
    await applyMigrations(pgRunner(admin), { lock: true });
  } finally {
    await admin.end();
  }
  const pool = new pg.default.Pool({ connectionString: url, max: poolSize });
  // A connection the server drops, idle or checked out: logged and discarded, never an uncaught error ending the process.
  catchPoolErrors(pool, logConnectionError);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  registerHotPool(prisma, pool);
  return {
    prisma,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** Opens and migrates an embedded PGlite database stored in `dir`. */
export async function openPglite(dir: string): Promise<OpenDb> {
  mkdirSync(dir, { recursive: true });
  const releaseLock = lockPgliteFolder(dir);
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  const pglite = await PGlite.create(dir);
  await applyMigrations(
    {
      exec: async (sql) => {
        await pglite.exec(sql);
      },
      query: async <T>(sql: string, params: unknown[] = []) => (await pglite.query<T>(sql, params)).rows,
    },
    { lock: false },
  );
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  const close = async () => {
    await prisma.$disconnect();
    await pglite.close();
    releaseLock();
  };
  process.once("beforeExit", () => void close().catch(() => undefined));
  return { prisma, close };
}

export class DatabaseInUseError extends Error {
  override name = "DatabaseInUseError";
}

/**
 * SECURITY: two processes writing one PGlite folder lose writes silently (STACK.md), so the folder is claimed with a
 * lock file holding the owner's pid; a stale lock (dead pid) is taken over.
 */
function lockPgliteFolder(dir: string): () => void {
  const lockFile = path.join(dir, "signet.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx" });
      return () => {
        try {
          unlinkSync(lockFile);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = Number(readFileSync(lockFile, "utf8"));
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseInUseError(
          `the embedded database ${dir} is in use by process ${owner}; stop it first, or use PostgreSQL (DATABASE_URL)`,
        );
      }
      unlinkSync(lockFile);
    }
  }
  throw new DatabaseInUseError(`could not lock the embedded database ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function pgRunner(client: import("pg").Client): SqlRunner {
  return {
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
  };
}

/**
 * True for a unique-constraint violation: Prisma's P2002 from model queries, and PostgreSQL's SQLSTATE 23505 from raw
 * ones, which the driver adapters report in different places (the meta differs between adapters).
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as {
    code?: unknown;
    meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } };
  };
  if (e.code === "P2002" || e.code === "23505") return true;
  const cause = e.meta?.driverAdapterError?.cause;
  return e.meta?.code === "23505" || cause?.originalCode === "23505" || cause?.kind === "UniqueConstraintViolation";
}
