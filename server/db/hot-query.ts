// The hot path's statements, sent to PostgreSQL straight through the client's own pg pool as named prepared
// statements: Prisma's raw-query pipeline costs several times the CPU of the pg driver per statement, and a paid call
// makes five. Results read as Prisma's $queryRaw reads them where the callers rely on it (int8 as bigint). A client
// with no pool behind it (PGlite, a transaction's client, a test's) runs the same statement through Prisma.
import "server-only";
import { createHash } from "node:crypto";
import pg from "pg";
import type { Prisma, PrismaClient } from "../generated/prisma/client";
import { databaseError } from "./classify-database-error";
import type { PoolStats } from "../metrics/registry";

/** The pool behind each open Prisma client, keyed weakly by the client (bound: one per open database). */
const pools = new WeakMap<object, pg.Pool>();

/**
 * Bounded memo cache of statement names by text (MAX_NAMED entries); past it, statements run unnamed (each PostgreSQL
 * connection keeps what it prepares).
 */
const names = new Map<string, string>();
const MAX_NAMED = 256;

const INT8_OID = 20;
/** Prisma's reading of raw results: int8 (counts, units) as bigint; everything else as pg reads it. */
const HOT_TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID
      ? (v: string) => BigInt(v)
      : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/** Marks `pool` as the pool behind `prisma`, for hotQuery and hotExecute. */
export function registerHotPool(prisma: PrismaClient, pool: pg.Pool): void {
  pools.set(prisma, pool);
}

/** The counts of the pool behind `prisma`: its connections, those idle, and the queries waiting; null with no pool (PGlite). */
export function hotPoolStats(prisma: PrismaClient): PoolStats | null {
  const pool = pools.get(prisma);
  return pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null;
}

/** The rows of `sql`, as `db.$queryRaw` would answer them. */
export async function hotQuery<T>(db: PrismaClient | Prisma.TransactionClient, sql: Prisma.Sql): Promise<T[]> {
  const pool = pools.get(db);
  if (!pool) return db.$queryRaw<T[]>(sql);
  try {
    return (await pool.query<T & pg.QueryResultRow>(config(sql))).rows;
  } catch (err) {
    throw databaseError(err);
  }
}

/** The count of rows `sql` changed, as `db.$executeRaw` would answer it. */
export async function hotExecute(db: PrismaClient | Prisma.TransactionClient, sql: Prisma.Sql): Promise<number> {
  const pool = pools.get(db);
  if (!pool) return db.$executeRaw(sql);
  try {
    return (await pool.query(config(sql))).rowCount ?? 0;
  } catch (err) {
    throw databaseError(err);
  }
}

function config(sql: Prisma.Sql): pg.QueryConfig {
  const text = sql.text;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `signet_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return { text, values: sql.values, types: HOT_TYPES, ...(name ? { name } : {}) };
}
