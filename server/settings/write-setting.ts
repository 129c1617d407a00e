// Changes one operator setting: validated by its key's parser (and the price against the ceiling), stored, and
// written to the audit log in the same transaction. A secret's audit row says that it was replaced, never its value.
import "server-only";
import type { DbClient } from "../db";
import { readRawSettings, type SettingDefaultsSource } from "./read-settings";
import {
  parseSettings,
  SETTING_DEFINITIONS,
  SETTING_PARSERS,
  SettingsError,
  type SettingKey,
} from "./setting-definitions";

/** What a secret's audit row holds instead of its values: whether one was stored before, and that it was replaced. */
export const SECRET_AUDIT = { stored: "(set)", replaced: "(replaced)" } as const;

/** The old and new values as audited (a secret's as SECRET_AUDIT's words), or why nothing was written. */
export type WriteSettingOutcome =
  { ok: true; oldValue: string | null; newValue: string } | { ok: false; key: SettingKey; message: string };

/** Validates and stores `value` for `key`, auditing who changed it. Invalid values change nothing. */
export async function writeSetting(
  db: DbClient,
  cfg: SettingDefaultsSource,
  key: SettingKey,
  value: string,
  actor: string,
): Promise<WriteSettingOutcome> {
  const parsed = SETTING_PARSERS[key](value, cfg.networks);
  if (!parsed.ok) return { ok: false, key, message: parsed.message };
  const raw = await readRawSettings(db, cfg);
  try {
    const next = parseSettings({ ...raw, [key]: value }, cfg.networks);
    if (next.flatPriceUnits > next.maxPriceUnits) {
      return { ok: false, key, message: "the flat price must be at or below SERVICE_MAX_PRICE_USDC" };
    }
  } catch (err) {
    if (err instanceof SettingsError) return { ok: false, key: err.key, message: err.message };
    throw err;
  }
  // SECURITY: the audit log is read by every operator and kept for good: a secret's value stays in the settings row.
  const secret = SETTING_DEFINITIONS[key].kind === "secret";
  return db.$transaction(async (tx) => {
    const old = await tx.setting.findUnique({ where: { key } });
    await tx.setting.upsert({
      where: { key },
      create: { key, value, updatedBy: actor },
      update: { value, updatedBy: actor },
    });
    const oldValue = old ? (secret ? SECRET_AUDIT.stored : old.value) : null;
    const newValue = secret ? SECRET_AUDIT.replaced : value;
    await tx.settingAudit.create({ data: { key, oldValue, newValue, actor } });
    return { ok: true as const, oldValue, newValue };
  });
}
