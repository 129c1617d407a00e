// Reads the operator settings on every request (operators change settings at run time; a change needs no restart):
// one query over the small settings table, each value falling back to its environment default.
import "server-only";
import type { DbClient } from "../db";
import { Prisma } from "../generated/prisma/client";
import { config } from "../env";
import { AppError } from "../errors";
import { log } from "../log";
import { envDefaults, isSettingKey, parseSettings, SettingsError, type SettingKey, type Settings } from "./setting-definitions";

/** The raw effective values: stored ones over env defaults. */
export async function readRawSettings(db: DbClient): Promise<Partial<Record<SettingKey, string>>> {
  const rows = await db.setting.findMany();
  return overEnvDefaults(Object.fromEntries(rows.map((row) => [row.key, row.value])));
}

/** The typed settings for this request; an invalid stored value is a 500 `server_misconfigured`, logged with its key. */
export async function readSettings(db: DbClient): Promise<Settings> {
  return parseOrMisconfigured(await readRawSettings(db));
}

/** The stored settings as one JSON object (key → value): an SQL fragment for a hot route's own statement. */
export const STORED_SETTINGS_JSON = Prisma.sql`(SELECT json_object_agg(key, value) FROM settings)`;

/**
 * The typed settings from the stored key → value pairs, read by a caller's own query (STORED_SETTINGS_JSON) so a hot
 * route fetches them in the same round trip as its other work. Same errors as readSettings.
 */
export function settingsFromStored(stored: Record<string, string> | null): Settings {
  return parseOrMisconfigured(overEnvDefaults(stored ?? {}));
}

function overEnvDefaults(stored: Record<string, string>): Partial<Record<SettingKey, string>> {
  const raw = envDefaults(config());
  for (const [key, value] of Object.entries(stored)) if (isSettingKey(key)) raw[key] = value;
  return raw;
}

function parseOrMisconfigured(raw: Partial<Record<SettingKey, string>>): Settings {
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
