// Changes one operator setting: validated by its key's parser (and the price against the ceiling), stored, and
// written to the audit log in the same transaction.
import "server-only";
import type { DbClient } from "../db";
import { readRawSettings, type SettingDefaultsSource } from "./read-settings";
import { parseSettings, SETTING_PARSERS, SettingsError, type SettingKey } from "./setting-definitions";

export type WriteSettingOutcome = { ok: true; oldValue: string | null; newValue: string } | { ok: false; key: SettingKey; message: string };

/** Validates and stores `value` for `key`, auditing who changed it. Invalid values change nothing. */
export async function writeSetting(db: DbClient, cfg: SettingDefaultsSource, key: SettingKey, value: string, actor: string): Promise<WriteSettingOutcome> {
  const parsed = SETTING_PARSERS[key](value);
  if (!parsed.ok) return { ok: false, key, message: parsed.message };
  const raw = await readRawSettings(db, cfg);
  try {
    const next = parseSettings({ ...raw, [key]: value });
    if (next.flatPriceUnits > next.maxPriceUnits) {
      return { ok: false, key, message: "the flat price must be at or below SERVICE_MAX_PRICE_USDC" };
    }
  } catch (err) {
    if (err instanceof SettingsError) return { ok: false, key: err.key, message: err.message };
    throw err;
  }
  return db.$transaction(async (tx) => {
    const old = await tx.setting.findUnique({ where: { key } });
    await tx.setting.upsert({
      where: { key },
      create: { key, value, updatedBy: actor },
      update: { value, updatedBy: actor },
    });
    await tx.settingAudit.create({ data: { key, oldValue: old?.value ?? null, newValue: value, actor } });
    return { ok: true as const, oldValue: old?.value ?? null, newValue: value };
  });
}
