// Integration tests get a fresh PostgreSQL database each (created on TEST_DATABASE_URL's server, migrated, dropped
// afterwards). PostgreSQL down is a loud failure with the command that starts it, never a skip.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPostgres } from "../../db";
import { migrationsChecksum } from "./migrations-checksum";
import { catchClientErrors } from "../../db/catch-connection-errors";
import type { PrismaClient } from "../../db";

import { TEST_ADMIN_URL } from "./env";

export { TEST_ADMIN_URL };

export interface TestDatabase {
  url: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_ADMIN_URL });
  // A dropped connection fails the admin query it was running, never the whole test process.
  catchClientErrors(client, () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at ${TEST_ADMIN_URL} (${(err as Error).message}). Start it with: ` +
        "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
      { cause: err },
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the test server. */
function databaseUrl(name: string): string {
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The migrated template's name: one per set of migrations. */
function templateName(): string {
  return `signet_tpl_${migrationsChecksum()}`;
}

/** Every process of the run (and of other runs on the server) makes the template under this advisory lock. */
const TEMPLATE_LOCK = 7_402_402;

/** This process's template, once it is known to exist. */
let template: Promise<string> | undefined;

/**
 * A database every migration was applied to, which test databases are copied from: copying it costs PostgreSQL a
 * sixth of what applying the migrations to each database did. Made once per set of migrations, by the first process
 * that needs it; the templates of older sets of migrations are dropped then.
 */
function migratedTemplate(): Promise<string> {
  template ??= admin(async (c) => {
    const name = templateName();
    await c.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      const found = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount === 0) {
        const building = `${name}_building_${randomBytes(4).toString("hex")}`;
        await c.query(`CREATE DATABASE "${building}"`);
        const open = await openPostgres(databaseUrl(building), 1);
        await open.close();
        await c.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
        const old = await c.query<{ datname: string }>(
          "SELECT datname FROM pg_database WHERE datname LIKE 'signet\\_tpl\\_%' AND datname <> $1",
          [name],
        );
        for (const { datname } of old.rows)
          await c.query(`DROP DATABASE IF EXISTS "${datname}"`).catch(() => undefined); // in use: left for later
      }
      return name;
    } finally {
      await c.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  });
  template.catch(() => (template = undefined));
  return template;
}

/**
 * Creates and returns a fresh database with every migration applied; `drop()` removes it. It is a copy of a migrated
 * template (opening it still checks every migration is there), unless `fresh`: then the migrations run on an empty
 * database, as at a deployment's first start.
 */
export async function createTestDatabase(poolSize = 10, { fresh = false } = {}): Promise<TestDatabase> {
  const name = `signet_t_${randomBytes(6).toString("hex")}`;
  const create = (from: string | null) =>
    admin((c) => c.query(`CREATE DATABASE "${name}"${from ? ` TEMPLATE "${from}"` : ""}`));
  if (fresh) await create(null);
  else
    await create(await migratedTemplate()).catch(async (err: unknown) => {
      // Dropped since this process looked (another checkout's run, on other migrations): made again.
      if ((err as { code?: string }).code !== "3D000") throw err;
      template = undefined;
      await create(await migratedTemplate());
    });
  const url = databaseUrl(name);
  const open = await openPostgres(url, poolSize);
  return {
    url,
    prisma: open.prisma,
    async drop() {
      await open.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
