// What `npm start` checks in the database it will serve, in one short open before the server opens it: that no newer
// release migrated it and no applied migration differs from this release's file (the migrator refuses both, having
// applied nothing), and that its receipt log's latest checkpoint was signed by the log key or the previous one.
// `signet doctor --local` runs the same checks.
import "server-only";
import { DatabaseInUseError } from "../db";
import { MigrationChecksumError, MigrationsFromNewerReleaseError } from "../db/apply-migrations";
import { ConfigError, type Config } from "../env";
import { createServiceKeys, type ServiceKeys } from "../keys/service-keys";
import { readLogKeyContinuity } from "../transparency/publish-log";
import { openForReport } from "./read-deployment-report";

/**
 * Opens the database `cfg` names (within the report's time limit), reads what would make serving it wrong, and closes
 * it; throws a one-line ConfigError for the first refusal. A database that cannot be opened for another reason (down,
 * slow, in use) is not refused here: the start-up report says why, and the server retries it.
 */
export async function checkDatabaseAtStart(
  cfg: Config,
  keys: Pick<ServiceKeys, "log"> = createServiceKeys(cfg),
): Promise<void> {
  if (typeof cfg !== "object" || cfg === null || typeof cfg.isProduction !== "boolean")
    throw new TypeError("checkDatabaseAtStart: a loaded config is required");
  const opened = await openForReport(cfg).catch((err: unknown) => {
    if (err instanceof DatabaseInUseError) return null;
    throw err;
  });
  if (!opened) return;
  if (!opened.ok) {
    // A migration this release does not have, or one whose recorded file differs from this release's: the schema is
    // not the one this code was written for.
    if (opened.error instanceof MigrationsFromNewerReleaseError || opened.error instanceof MigrationChecksumError)
      throw new ConfigError(opened.error.message);
    return;
  }
  try {
    // The migrations are applied by now (by this open), so the log's tables are there; an empty log passes. A read
    // that fails is the report's to show, as a database that does not open is.
    const continuity = await readLogKeyContinuity(opened.open.prisma, keys.log()).catch(() => null);
    if (continuity && !continuity.ok) throw new ConfigError(continuity.detail);
  } finally {
    await opened.open.close();
  }
}
