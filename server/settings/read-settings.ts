// Reads the operator settings on every request (the seed's §2.6: a change needs no restart): one query over the
// small settings table, each value falling back to its environment default.
import type { DbClient } from "../db";
import { config } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { envDefaults, isSettingKey, parseSettings, SettingsError, type SettingKey, type Settings } from "./setting-definitions";

/** The raw effective values: stored ones over env defaults. */
export async function readRawSettings(db: DbClient): Promise<Partial<Record<SettingKey, string>>> {
  const rows = await db.setting.findMany();
  const raw = envDefaults(config());
  for (const row of rows) if (isSettingKey(row.key)) raw[row.key] = row.value;
  return raw;
}

/** The typed settings for this request; an invalid stored value is a 500 `server_misconfigured`, logged with its key. */
export async function readSettings(db: DbClient): Promise<Settings> {
  const raw = await readRawSettings(db);
  try {
    return parseSettings(raw);
  } catch (err) {
    if (err instanceof SettingsError) {
      log.error({ event: "settings.invalid", key: err.key, reason: err.message }, "invalid setting");
      throw new AppError("server_misconfigured", "the service is misconfigured");
    }
    throw err;
  }
}
