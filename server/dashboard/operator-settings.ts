// The dashboard's settings: every setting with its typed value and the problems the settings cause now; and a change,
// which is validated by its setting's kind and parser, refused when it breaks a rule the service enforces, held back
// until the operator confirms each consequence for calls, then written with its audit row.
import "server-only";
import type { Runtime } from "../context/runtime";
import { encodeSettingValue, type SettingInput } from "../settings/encode-setting-value";
import { effectiveSettingText, readRawSettings, readSettingSources } from "../settings/read-settings";
import {
  settingConsequences,
  standingProblems,
  unconfirmed,
  type DeploymentFacts,
  type SettingConsequence,
  type SettingEffect,
} from "../settings/setting-consequences";
import { parseSettings, SettingsError, type SettingKey, type Settings } from "../settings/setting-definitions";
import { settingViews, type SettingView } from "../settings/setting-views";
import { writeSetting } from "../settings/write-setting";
import { readDeploymentFacts } from "./deployment-facts";

export interface OperatorSettings {
  settings: SettingView[];
  /** What the settings in effect break now (empty while a stored value does not parse: `problem` on that setting says so). */
  problems: SettingEffect[];
}

/** Every setting as the dashboard shows it, and the problems they cause now. */
export async function readOperatorSettings(runtime: Runtime): Promise<OperatorSettings> {
  const [sources, facts] = await Promise.all([
    readSettingSources(runtime.db, runtime.config),
    readDeploymentFacts(runtime),
  ]);
  const current = parseOrNull(effectiveSettingText(sources), facts);
  return { settings: settingViews(sources, facts), problems: current ? standingProblems(current, facts) : [] };
}

export interface SettingChangeInput {
  key: SettingKey;
  value: SettingInput;
  /** The ids of the consequences the operator was shown and confirmed. */
  acknowledged: readonly string[];
}

/**
 * Why a change was not written. `invalid_value`: not a value of the setting's kind, or its parser refuses it;
 * `refused`: it breaks a rule whatever is confirmed; `confirmation_required`: it has consequences not yet confirmed.
 */
type ChangeRefusal = "invalid_value" | "refused" | "confirmation_required";

export type ChangeSettingOutcome =
  | { ok: true }
  | { ok: false; reason: ChangeRefusal; key: SettingKey; message: string; consequences: SettingConsequence[] };

/** Validates the change, works out its consequences, and writes it (audited as `actor`) only when nothing is left to confirm. */
export async function changeOperatorSetting(
  runtime: Runtime,
  input: SettingChangeInput,
  actor: string,
): Promise<ChangeSettingOutcome> {
  const { key } = input;
  const encoded = encodeSettingValue(key, input.value, runtime.config.networks);
  if (!encoded.ok) return { ok: false, reason: "invalid_value", key, message: encoded.message, consequences: [] };
  const [raw, facts] = await Promise.all([readRawSettings(runtime.db, runtime.config), readDeploymentFacts(runtime)]);
  let proposed: Settings;
  try {
    proposed = parseSettings({ ...raw, [key]: encoded.value }, facts.networks);
  } catch (err) {
    // Another stored value does not parse: the message names it, and this change cannot be weighed against it.
    if (err instanceof SettingsError)
      return { ok: false, reason: "invalid_value", key: err.key, message: err.message, consequences: [] };
    throw err;
  }
  const consequences = settingConsequences({ key, current: parseOrNull(raw, facts), proposed }, facts);
  const refused = consequences.filter((c) => c.severity === "refuse");
  if (refused.length > 0)
    return { ok: false, reason: "refused", key, message: refused.map((c) => c.message).join(" "), consequences };
  if (unconfirmed(consequences, input.acknowledged).length > 0) {
    return {
      ok: false,
      reason: "confirmation_required",
      key,
      message: "this change has consequences for calls: confirm them to save it",
      consequences,
    };
  }
  const written = await writeSetting(runtime.db, runtime.config, key, encoded.value, actor);
  return written.ok
    ? { ok: true }
    : { ok: false, reason: "invalid_value", key: written.key, message: written.message, consequences: [] };
}

function parseOrNull(raw: Partial<Record<SettingKey, string>>, facts: DeploymentFacts): Settings | null {
  try {
    return parseSettings(raw, facts.networks);
  } catch (err) {
    if (err instanceof SettingsError) return null;
    throw err;
  }
}
