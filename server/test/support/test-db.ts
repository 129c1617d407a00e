// Integration tests get a fresh PostgreSQL database each (created on TEST_DATABASE_URL's server, migrated, dropped
// afterwards). PostgreSQL down is a loud failure with the command that starts it, never a skip.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPostgres } from "../../db";
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

/** Creates, migrates and returns a fresh database; `drop()` removes it. */
export async function createTestDatabase(poolSize = 10): Promise<TestDatabase> {
  const name = `signet_t_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  const open = await openPostgres(url.toString(), poolSize);
  return {
    url: url.toString(),
    prisma: open.prisma,
    async drop() {
      await open.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
