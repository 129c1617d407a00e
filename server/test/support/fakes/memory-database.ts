// The real schema in an embedded PGlite held in memory, for unit tests whose SQL matters (the payment claim, the
// ledger's statements). Migrating a fresh PGlite takes seconds; the migrated data directory is kept in the system's
// temporary folder under the migrations' checksum, so every later run loads it instead. Starting the engine still
// takes seconds on a loaded machine, so a worker opens one database (a bounded memo: one) and the unit stage's files
// it runs share it, one after another: each file keeps to rows of its own (fresh payers and keys), and puts back
// any setting it writes.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { applyMigrations } from "../../../db/apply-migrations";
import { migrationsChecksum } from "../migrations-checksum";
import { PrismaClient, type OpenDb } from "../../../db";

/** The migrated data directory's file: one per set of migrations. */
function snapshotFile(): string {
  return path.join(tmpdir(), `signet-migrated-pglite-${migrationsChecksum()}.tar`);
}

/** A fresh PGlite with every migration applied, and its data directory saved for the next caller. */
async function migrateFresh(file: string): Promise<PGlite> {
  const pglite = await PGlite.create();
  await applyMigrations(
    {
      exec: async (sql) => {
        await pglite.exec(sql);
      },
      query: async <T>(sql: string, params: unknown[] = []) => (await pglite.query<T>(sql, params)).rows,
    },
    { lock: false },
  );
  const dump = await pglite.dumpDataDir("none");
  // Written aside and renamed: a concurrent file never loads a half-written snapshot.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, file);
  return pglite;
}

/** The worker's database, once opened. */
let shared: Promise<OpenDb> | undefined;

/**
 * The worker's migrated in-memory database, opened on first use. `close()` leaves it open for the worker's next file
 * (it ends with the worker).
 */
export function openMemoryDatabase(): Promise<OpenDb> {
  shared ??= (async () => {
    const file = snapshotFile();
    const pglite = existsSync(file)
      ? await PGlite.create({ loadDataDir: new Blob([readFileSync(file)]) })
      : await migrateFresh(file);
    return { prisma: new PrismaClient({ adapter: new PrismaPGlite(pglite) }), close: async () => undefined };
  })();
  shared.catch(() => (shared = undefined));
  return shared;
}
