// What the dashboard shows of each setting: its label, help and kind with the typed value its control edits, where the
// value comes from (the settings table or the environment's default) and, for a secret, only whether it is set and
// by what. Pure: built from the stored rows, the environment's defaults and the deployment's facts.
import "server-only";
import { formatUnitsAsUsdc, type NetworkId } from "../verify";
import type { SettingSources } from "./read-settings";
import type { DeploymentFacts } from "./setting-consequences";
import {
  SETTING_DEFINITIONS,
  SETTING_KEYS,
  SETTING_PARSERS,
  type SettingGroup,
  type SettingKey,
} from "./setting-definitions";

/** A network the default-network control offers. */
interface NetworkOption {
  id: NetworkId;
  label: string;
  mainnet: boolean;
  /** Whether an RPC is configured for it on this deployment. */
  offered: boolean;
}

/**
 * Where a secret's value comes from. `data_dir`: development generated it there (the service's own fallback when the
 * setting is unset); null: it is not set.
 */
type SecretOrigin = "stored" | "environment" | "data_dir" | null;

/** The typed value of one setting, by kind. A value the key's parser refuses is null (a usdc or address: its text). */
type SettingValueView =
  | { kind: "boolean"; value: boolean | null }
  | { kind: "usdc"; value: string; min: "positive" | "zero" }
  | { kind: "integer"; value: number | null; min: number; max: number }
  | { kind: "network"; value: NetworkId | null; options: NetworkOption[] }
  | { kind: "keys"; value: string[] }
  | { kind: "address"; value: string | null }
  // SECURITY: a secret's view holds whether it is set and where from, never its value.
  | { kind: "secret"; set: boolean; origin: SecretOrigin; status: string };

export type SettingView = SettingValueView & {
  key: SettingKey;
  label: string;
  help: string;
  group: SettingGroup;
  /** `stored`: written on the dashboard or with the CLI; `environment`: the environment variable named `key`. */
  source: "stored" | "environment" | "unset";
  /** Who stored the value, and when (ISO 8601); null for a default. */
  updatedBy: string | null;
  updatedAt: string | null;
  /** The parser's message when the value in effect is invalid (the service then answers 500 server_misconfigured). */
  problem: string | null;
};

/** Every setting as the dashboard shows it, in the definitions' order of groups. */
export function settingViews(sources: SettingSources, facts: DeploymentFacts): SettingView[] {
  return SETTING_KEYS.map((key) => settingView(key, sources, facts));
}

function settingView(key: SettingKey, sources: SettingSources, facts: DeploymentFacts): SettingView {
  const definition = SETTING_DEFINITIONS[key];
  const stored = sources.stored[key];
  const text = stored?.value ?? sources.defaults[key];
  const source = stored ? "stored" : text !== undefined ? "environment" : "unset";
  const parsed = text === undefined ? null : SETTING_PARSERS[key](text, facts.networks);
  const common = {
    key,
    label: definition.label,
    help: definition.help,
    group: definition.group,
    source,
    updatedBy: stored?.updatedBy ?? null,
    updatedAt: stored?.updatedAt.toISOString() ?? null,
    problem: parsed && !parsed.ok ? parsed.message : null,
  } as const;
  const value = parsed?.ok ? parsed.value : null;
  switch (definition.kind) {
    case "boolean":
      return { ...common, kind: "boolean", value: typeof value === "boolean" ? value : null };
    case "usdc":
      return {
        ...common,
        kind: "usdc",
        value: typeof value === "bigint" ? formatUnitsAsUsdc(value) : (text ?? ""),
        min: definition.min,
      };
    case "integer":
      return {
        ...common,
        kind: "integer",
        value: typeof value === "number" ? value : null,
        min: definition.min,
        max: definition.max,
      };
    case "network":
      return {
        ...common,
        kind: "network",
        value: typeof value === "string" ? value : null,
        options: facts.networks.rows.map((n) => ({
          id: n.id,
          label: n.label,
          mainnet: n.isMainnet,
          offered: facts.offeredNetworks.includes(n.id),
        })),
      };
    case "keys":
      return {
        ...common,
        kind: "keys",
        value: (text ?? "")
          .split(",")
          .map((k) => k.trim())
          .filter(Boolean),
      };
    case "address":
      return { ...common, kind: "address", value: text?.trim() ? text.trim() : null };
    case "secret": {
      const generated = definition.generatedInDevelopment && !facts.production && facts.generatedSecrets.includes(key);
      const origin: SecretOrigin =
        source === "stored" && text
          ? "stored"
          : source === "environment"
            ? "environment"
            : generated
              ? "data_dir"
              : null;
      return {
        ...common,
        kind: "secret",
        set: origin !== null,
        origin,
        status: secretStatus(key, origin, definition.generatedInDevelopment, facts),
      };
    }
  }
}

/** The sentence the dashboard shows for a secret: set or not, and by what, as the service resolves it. */
function secretStatus(
  key: SettingKey,
  origin: SecretOrigin,
  generatedInDevelopment: boolean,
  facts: DeploymentFacts,
): string {
  if (origin === "stored") return "set (stored in the settings table)";
  if (origin === "environment") return `set (from the environment, ${key})`;
  if (origin === "data_dir") return "set (generated in the data dir)";
  if (generatedInDevelopment && !facts.production)
    return "not set: development generates one in the data dir at first use";
  return "not set";
}
