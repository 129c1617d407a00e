// Turns the dashboard's typed value for a setting (a toggle's boolean, an amount, a list of keys) into the text the
// settings table stores, checked against the setting's kind and then its key's own parser: the one validation a
// stored value gets, whoever writes it.
import "server-only";
import { formatUnitsAsUsdc, parseUsdcToUnits, type NetworkRegistry } from "../verify";
import { SETTING_DEFINITIONS, SETTING_PARSERS, type ParseOutcome, type SettingKey } from "./setting-definitions";

/** A setting's value as the dashboard sends it: its shape is the setting's kind's. */
export type SettingInput = boolean | number | string | readonly string[];

/**
 * A USDC amount as an operator types it: digits with at most 6 decimals (1 USDC = 1,000,000 units). At most 12 whole
 * digits, so any amount in atomic units fits the ledger's 64-bit columns.
 */
const USDC_AMOUNT = /^\d{1,12}(\.\d{1,6})?$/;

/** The stored text for `value` (a network: one of `networks`), or a message naming what is wrong with it. Nothing is written here. */
export function encodeSettingValue(
  key: SettingKey,
  value: SettingInput,
  networks: NetworkRegistry,
): ParseOutcome<string> {
  const encoded = encodeByKind(key, value, networks);
  if (!encoded.ok) return encoded;
  const parsed = SETTING_PARSERS[key](encoded.value, networks);
  return parsed.ok ? encoded : { ok: false, message: parsed.message };
}

function encodeByKind(key: SettingKey, value: SettingInput, networks: NetworkRegistry): ParseOutcome<string> {
  const definition = SETTING_DEFINITIONS[key];
  switch (definition.kind) {
    case "boolean":
      return typeof value === "boolean"
        ? { ok: true, value: String(value) }
        : { ok: false, message: "must be on or off (true or false)" };
    case "usdc": {
      if (typeof value !== "string")
        return { ok: false, message: "must be a USDC amount written as a decimal, such as 0.01" };
      const text = value.trim();
      if (/^\d+\.\d{7,}$/.test(text))
        return { ok: false, message: "must have at most 6 decimals (1 USDC = 1,000,000 units)" };
      if (!USDC_AMOUNT.test(text))
        return { ok: false, message: "must be a USDC amount written as a decimal, such as 0.01" };
      // The canonical form (no trailing zeros), so the audit log and the table show one spelling per amount.
      return { ok: true, value: formatUnitsAsUsdc(parseUsdcToUnits(text)!) };
    }
    case "integer":
      return typeof value === "number" &&
        Number.isSafeInteger(value) &&
        value >= definition.min &&
        value <= definition.max
        ? { ok: true, value: String(value) }
        : { ok: false, message: `must be a whole number from ${definition.min} to ${definition.max}` };
    case "network": {
      const row = typeof value === "string" ? networks.byId(value) : null;
      return row ? { ok: true, value: row.caip2 } : { ok: false, message: `must be one of ${networks.ids.join(", ")}` };
    }
    case "keys": {
      if (!Array.isArray(value) || !value.every((k): k is string => typeof k === "string"))
        return { ok: false, message: "must be a list of keys" };
      const keys = value.map((k) => k.trim()).filter(Boolean);
      // A comma or a space inside one entry would be read back as two keys.
      const joined = keys.find((k) => /[,\s]/.test(k));
      if (joined)
        return { ok: false, message: `${joined.slice(0, 12)}… holds more than one key; give one key per entry` };
      return { ok: true, value: [...new Set(keys)].join(",") };
    }
    case "address":
      return typeof value === "string"
        ? { ok: true, value: value.trim() }
        : { ok: false, message: "must be a base58 public key, or empty" };
    case "secret":
      return typeof value === "string" && value.trim() !== ""
        ? { ok: true, value: value.trim() }
        : { ok: false, message: "type the new value to replace the stored one" };
  }
}
