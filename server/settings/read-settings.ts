// Reads the operator settings on every request (operators change settings at run time; a change needs no restart):
// one query over the small settings table, each value falling back to its environment default.
import "server-only";
import type { DbClient } from "../db";
import { Prisma } from "../generated/prisma/client";
import { hotQuery } from "../db/hot-query";
import { AppError } from "../errors";
import type { Logger } from "../log";
import type { NetworkRegistry } from "../verify";
import {
  envDefaults,
  isSettingKey,
  parseSettings,
  SettingsError,
  type SettingKey,
  type Settings,
} from "./setting-definitions";

/** The config whose values are the settings' defaults, and whose networks a network setting names. */
export type SettingDefaultsSource = Parameters<typeof envDefaults>[0] & { networks: NetworkRegistry };

/** The raw effective values: stored ones over env defaults. */
export async function readRawSettings(
  db: DbClient,
  cfg: SettingDefaultsSource,
): Promise<Partial<Record<SettingKey, string>>> {
  const rows = await db.setting.findMany();
  return overEnvDefaults(Object.fromEntries(rows.map((row) => [row.key, row.value])), cfg);
}

/** One stored setting: its text and who wrote it when. */
interface StoredSetting {
  value: string;
  updatedBy: string | null;
  updatedAt: Date;
}

/** Where each setting's value comes from: the settings table, else the environment's default. */
export interface SettingSources {
  stored: Partial<Record<SettingKey, StoredSetting>>;
  defaults: Partial<Record<SettingKey, string>>;
}

/** The stored settings (with who wrote them) and the environment's defaults, apart: the dashboard shows both. */
export async function readSettingSources(db: DbClient, cfg: SettingDefaultsSource): Promise<SettingSources> {
  const rows = await db.setting.findMany();
  const stored: SettingSources["stored"] = {};
  for (const row of rows)
    if (isSettingKey(row.key))
      stored[row.key] = { value: row.value, updatedBy: row.updatedBy, updatedAt: row.updatedAt };
  return { stored, defaults: envDefaults(cfg) };
}

/** The text in effect per setting: the stored value over the environment's default. */
export function effectiveSettingText(sources: SettingSources): Partial<Record<SettingKey, string>> {
  const raw = { ...sources.defaults };
  for (const [key, row] of Object.entries(sources.stored)) if (isSettingKey(key) && row) raw[key] = row.value;
  return raw;
}

/**
 * The typed settings for this request; an invalid stored value is a 500 `server_misconfigured`, logged to `log` with
 * its key.
 */
export async function readSettings(db: DbClient, cfg: SettingDefaultsSource, log: Logger): Promise<Settings> {
  return parseOrMisconfigured(await readRawSettings(db, cfg), cfg.networks, log);
}

/**
 * The stored settings as one jsonb object (key → value), SQL NULL when none are stored: an SQL fragment for a hot
 * route's own statement.
 */
export const STORED_SETTINGS_JSON = Prisma.sql`(SELECT jsonb_object_agg(key, value) FROM settings)`;

/** The stored settings (key → value) as a statement reads them; null when none are stored. */
export type StoredSettings = Record<string, string> | null;

/**
 * An SQL condition: the stored settings are exactly `expected` (compared as jsonb, whatever the key order), as `stored`
 * reads them: STORED_SETTINGS_JSON, or a statement's own reading of it, so it aggregates them once.
 */
export function storedSettingsAre(expected: StoredSettings, stored: Prisma.Sql = STORED_SETTINGS_JSON): Prisma.Sql {
  return Prisma.sql`${stored} IS NOT DISTINCT FROM ${expected === null ? null : JSON.stringify(expected)}::jsonb`;
}

/** Where a runtime keeps the stored settings its last hot statement read (RuntimeState's settingsSeen). */
export interface SettingsMemory {
  /** The stored settings the last hot statement read; null before the first. */
  settingsSeen: { value: StoredSettings } | null;
}

/**
 * The stored settings `memory` saw last: only a guess for planning the next hot request, which its own statement
 * checks (storedSettingsAre) before anything is taken on it.
 */
export function lastStoredSettings(memory: SettingsMemory): { value: StoredSettings } | undefined {
  return memory.settingsSeen ?? undefined;
}

/** Records what a hot statement found stored, for the next request's guess. */
export function rememberStoredSettings(memory: SettingsMemory, value: StoredSettings): void {
  memory.settingsSeen = { value };
}

/** Reads the stored settings in one statement, and remembers them in `memory`. */
export async function readStoredSettings(db: DbClient, memory: SettingsMemory): Promise<StoredSettings> {
  const rows = await hotQuery<{ stored: StoredSettings }>(db, Prisma.sql`SELECT ${STORED_SETTINGS_JSON} AS stored`);
  const stored = rows[0]?.stored ?? null;
  rememberStoredSettings(memory, stored);
  return stored;
}

/**
 * The typed settings from the stored key → value pairs, read by a caller's own query (STORED_SETTINGS_JSON) so a hot
 * route fetches them in the same round trip as its other work. Same errors as readSettings.
 */
export function settingsFromStored(
  stored: Record<string, string> | null,
  cfg: SettingDefaultsSource,
  log: Logger,
): Settings {
  return parseOrMisconfigured(overEnvDefaults(stored ?? {}, cfg), cfg.networks, log);
}

function overEnvDefaults(
  stored: Record<string, string>,
  cfg: SettingDefaultsSource,
): Partial<Record<SettingKey, string>> {
  const raw = envDefaults(cfg);
  for (const [key, value] of Object.entries(stored)) if (isSettingKey(key)) raw[key] = value;
  return raw;
}

function parseOrMisconfigured(
  raw: Partial<Record<SettingKey, string>>,
  networks: NetworkRegistry,
  log: Logger,
): Settings {
  try {
    return parseSettings(raw, networks);
  } catch (err) {
    if (err instanceof SettingsError) {
      log.error({ event: "settings.invalid", key: err.key, reason: err.message }, "invalid setting");
      throw new AppError("server_misconfigured", "the service is misconfigured");
    }
    throw err;
  }
}
