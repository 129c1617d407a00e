// A fresh PostgreSQL database behind the routes' runtime, with a fresh data dir (dev keys) and env overrides: for
// route tests that need the database but no chain.
import { closeRouteRuntime } from "../../runtime/route-edge";
import { setEnv, tempDataDir } from "./env";
import { createTestDatabase, type TestDatabase } from "./test-db";

export interface DbStack {
  tdb: TestDatabase;
  close(): Promise<void>;
}

/** Points the routes at a new test database; `close()` drops it and restores the env. */
export async function startDbStack(env: Record<string, string | undefined> = {}): Promise<DbStack> {
  const tdb = await createTestDatabase(4);
  const restore = setEnv({
    NODE_ENV: "test",
    SIGNET_DATA_DIR: tempDataDir("signet-db-"),
    DATABASE_URL: tdb.url,
    ...env,
  });
  return {
    tdb,
    async close() {
      await closeRouteRuntime();
      await tdb.drop();
      await restore();
    },
  };
}
