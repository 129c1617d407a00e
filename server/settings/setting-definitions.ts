// The operator settings, changed at run time without a restart: each key's kind, label and help (the dashboard's
// controls are generated from them), its parser and validator. Values are stored as text in the settings table (read
// on every request) and fall back to the environment's defaults.
import "server-only";
import { isBase58PublicKey, parseUsdcToUnits, type NetworkId, type NetworkRegistry } from "../verify";

export const SETTING_KEYS = [
  "X402_NETWORK",
  "X402_FLAT_PRICE_USDC",
  "SERVICE_MAX_PRICE_USDC",
  "SERVICE_DEPOSIT_ADDRESS",
  "SERVICE_MAINNET_DEPOSIT_ADDRESS",
  "SERVICE_MAINNET_ENABLED",
  "SERVICE_ALLOWED_AGENTS",
  "SERVICE_TESTNET_PROVIDER_MODELS",
  "SERVICE_GRANT_AMOUNT_USDC",
  "SERVICE_GRANT_MAX_PER_IP",
  "SERVICE_GRANT_BUDGET_DAILY_USDC",
  "IP_HASH_SALT",
] as const;

export type SettingKey = (typeof SETTING_KEYS)[number];

/**
 * What kind of value a setting holds, which decides its control on the dashboard and the typed value the dashboard
 * sends: boolean (a toggle), usdc (a decimal amount of USDC), integer, network (one of the network table's rows),
 * keys (a list of payer keys), address (one base58 public key, or none) and secret (write-only, never shown).
 */
export type SettingKind = "boolean" | "usdc" | "integer" | "network" | "keys" | "address" | "secret";

/** Where the dashboard shows a setting, in the order it shows them. */
export const SETTING_GROUPS = ["mainnet", "payments", "models", "grants"] as const;

export type SettingGroup = (typeof SETTING_GROUPS)[number];

interface DefinitionText {
  /** What the operator reads instead of the environment name. */
  label: string;
  /** One or two sentences: what it does, and what a wrong value does to calls. */
  help: string;
  group: SettingGroup;
}

/** How each setting is shown and edited; the kind-specific fields bound what the dashboard offers. */
export type SettingDefinition = DefinitionText &
  (
    | { kind: Exclude<SettingKind, "usdc" | "integer" | "secret"> }
    /** `generatedInDevelopment`: unset outside production, the service generates one into the data dir at first use. */
    | { kind: "secret"; generatedInDevelopment: boolean }
    /** `positive`: above zero; `zero`: zero or more. */
    | { kind: "usdc"; min: "positive" | "zero" }
    | { kind: "integer"; min: number; max: number }
  );

/** Every setting's kind, label and help: the dashboard's controls are generated from this table. */
export const SETTING_DEFINITIONS: { readonly [K in SettingKey]: SettingDefinition } = {
  SERVICE_MAINNET_ENABLED: {
    kind: "boolean",
    group: "mainnet",
    label: "Mainnet",
    help: "The kill switch: Solana mainnet and Base take payments only while it is on. Off, their calls answer 503 mainnet_disabled from the next request, on every instance.",
  },
  SERVICE_MAINNET_DEPOSIT_ADDRESS: {
    kind: "address",
    group: "mainnet",
    label: "Solana mainnet deposit address",
    help: "The base58 public key Solana mainnet payments go to (Base pays the facilitator's EVM key). Without one, a Solana mainnet call answers 500 server_misconfigured.",
  },
  SERVICE_ALLOWED_AGENTS: {
    kind: "keys",
    group: "mainnet",
    label: "Agents allowed on mainnet",
    help: "The payers that may pay on a mainnet: Solana public keys or Base 0x addresses. Empty: any agent may pay. Others are refused with 403 agent_not_allowed.",
  },
  X402_NETWORK: {
    kind: "network",
    group: "payments",
    label: "Default network",
    help: "Where a call that names no network pays, and where grants credit. A mainnet serves only while mainnet is on.",
  },
  X402_FLAT_PRICE_USDC: {
    kind: "usdc",
    min: "positive",
    group: "payments",
    label: "Price per paid call",
    help: "What one paid chat call costs. At most the price ceiling; a model whose worst-case cost is above it is refused.",
  },
  SERVICE_MAX_PRICE_USDC: {
    kind: "usdc",
    min: "positive",
    group: "payments",
    label: "Price ceiling",
    help: "The most the service asks for one call: the price per paid call must stay at or below it.",
  },
  SERVICE_DEPOSIT_ADDRESS: {
    kind: "address",
    group: "payments",
    label: "Devnet deposit address",
    help: "Where Solana devnet payments go: only the facilitator's own address (it pays the fees). Empty means that address.",
  },
  SERVICE_TESTNET_PROVIDER_MODELS: {
    kind: "boolean",
    group: "models",
    label: "Provider models on testnets",
    help: "Whether devnet and Base Sepolia offer the provider's models. Off, testnets serve the built-in model only: faucet USDC is free and must not buy inference you pay for.",
  },
  SERVICE_GRANT_AMOUNT_USDC: {
    kind: "usdc",
    min: "positive",
    group: "grants",
    label: "Grant per new key",
    help: "The sponsored credit a new key may claim once, on the default network.",
  },
  SERVICE_GRANT_MAX_PER_IP: {
    kind: "integer",
    min: 0,
    max: 999_999,
    group: "grants",
    label: "Grants per client address",
    help: "How many grants one client address may ever claim (counted by a salted hash of the address). 0 stops grants.",
  },
  SERVICE_GRANT_BUDGET_DAILY_USDC: {
    kind: "usdc",
    min: "zero",
    group: "grants",
    label: "Daily grant budget",
    help: "The most all grants together may credit per UTC day; once it is spent, claims answer 503 grant_budget_exhausted.",
  },
  IP_HASH_SALT: {
    kind: "secret",
    generatedInDevelopment: true,
    group: "grants",
    label: "IP-hash salt",
    help: "The secret that salts the hashes of client addresses, which grants and per-address rate limits count by. Write-only: replace it with a new value of at least 16 characters.",
  },
};

/** The typed, validated settings a request runs with. */
export interface Settings {
  defaultNetwork: NetworkId;
  flatPriceUnits: bigint;
  maxPriceUnits: bigint;
  /** Devnet deposit address (base58); null when unset. */
  depositAddress: string | null;
  mainnetDepositAddress: string | null;
  /** True only when the stored value is exactly "true": anything else keeps mainnets off. */
  mainnetEnabled: boolean;
  /** Empty = open: any agent may pay. */
  allowedAgents: ReadonlySet<string>;
  /**
   * Whether testnets (devnet, Base Sepolia) offer the provider's models. Off by default: free faucet USDC must not buy
   * real inference, so testnets serve the built-in model only. True only for exactly "true".
   */
  testnetProviderModels: boolean;
  grantAmountUnits: bigint;
  grantMaxPerIp: number;
  grantBudgetDailyUnits: bigint;
  ipHashSalt: string | null;
}

export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; message: string };

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const positiveUsdc = (text: string): ParseOutcome<bigint> => {
  const units = parseUsdcToUnits(text);
  if (units === null) return { ok: false, message: "must be a USDC amount with at most 6 decimals" };
  if (units <= 0n) return { ok: false, message: "must be positive" };
  return { ok: true, value: units };
};

const exactSwitch = (text: string): ParseOutcome<boolean> =>
  text === "true" || text === "false"
    ? { ok: true, value: text === "true" }
    : { ok: false, message: 'must be "true" or "false"' };

const optionalAddress = (text: string): ParseOutcome<string | null> => {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: null };
  return isBase58PublicKey(trimmed)
    ? { ok: true, value: trimmed }
    : { ok: false, message: "must be a base58 public key" };
};

/** One parser per key: text → typed value, or a message an operator can act on. A network is one of `networks`. */
export const SETTING_PARSERS: {
  [K in SettingKey]: (text: string, networks: NetworkRegistry) => ParseOutcome<unknown>;
} = {
  X402_NETWORK: (text, networks) => {
    const id = networks.resolve(text);
    return id
      ? { ok: true, value: id }
      : { ok: false, message: `must be ${networks.requestNames.join(", ")} or a CAIP-2 id` };
  },
  X402_FLAT_PRICE_USDC: positiveUsdc,
  SERVICE_MAX_PRICE_USDC: positiveUsdc,
  SERVICE_DEPOSIT_ADDRESS: optionalAddress,
  SERVICE_MAINNET_DEPOSIT_ADDRESS: optionalAddress,
  SERVICE_MAINNET_ENABLED: exactSwitch,
  SERVICE_TESTNET_PROVIDER_MODELS: exactSwitch,
  SERVICE_ALLOWED_AGENTS: (text) => {
    // Solana agents are base58 keys; Base agents are 0x addresses, kept lower-case as payers are.
    const keys = text
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean);
    const bad = keys.find((k): boolean => !isBase58PublicKey(k) && !EVM_ADDRESS.test(k));
    if (bad) return { ok: false, message: `${bad.slice(0, 12)}… is neither a base58 public key nor a 0x address` };
    return { ok: true, value: new Set(keys.map((k) => (EVM_ADDRESS.test(k) ? k.toLowerCase() : k))) };
  },
  SERVICE_GRANT_AMOUNT_USDC: positiveUsdc,
  SERVICE_GRANT_MAX_PER_IP: (text) =>
    /^\d{1,6}$/.test(text.trim())
      ? { ok: true, value: Number(text.trim()) }
      : { ok: false, message: "must be a whole number" },
  SERVICE_GRANT_BUDGET_DAILY_USDC: (text) => {
    const units = parseUsdcToUnits(text);
    return units === null
      ? { ok: false, message: "must be a USDC amount with at most 6 decimals" }
      : { ok: true, value: units };
  },
  IP_HASH_SALT: (text) =>
    text.length >= 16 ? { ok: true, value: text } : { ok: false, message: "must be at least 16 characters" },
};

/** The config values that seed the settings: each setting's environment variable, as written. */
export type SettingEnvValues = {
  [K in Exclude<SettingKey, "SERVICE_DEPOSIT_ADDRESS" | "SERVICE_MAINNET_DEPOSIT_ADDRESS" | "IP_HASH_SALT">]: string;
} & {
  SERVICE_DEPOSIT_ADDRESS?: string | undefined;
  SERVICE_MAINNET_DEPOSIT_ADDRESS?: string | undefined;
  IP_HASH_SALT?: string | undefined;
};

/** The environment's value for each key (the default the settings table overrides). */
export function envDefaults(cfg: SettingEnvValues): Partial<Record<SettingKey, string>> {
  const out: Partial<Record<SettingKey, string>> = {
    X402_NETWORK: cfg.X402_NETWORK,
    X402_FLAT_PRICE_USDC: cfg.X402_FLAT_PRICE_USDC,
    SERVICE_MAX_PRICE_USDC: cfg.SERVICE_MAX_PRICE_USDC,
    SERVICE_MAINNET_ENABLED: cfg.SERVICE_MAINNET_ENABLED,
    SERVICE_ALLOWED_AGENTS: cfg.SERVICE_ALLOWED_AGENTS,
    SERVICE_TESTNET_PROVIDER_MODELS: cfg.SERVICE_TESTNET_PROVIDER_MODELS,
    SERVICE_GRANT_AMOUNT_USDC: cfg.SERVICE_GRANT_AMOUNT_USDC,
    SERVICE_GRANT_MAX_PER_IP: cfg.SERVICE_GRANT_MAX_PER_IP,
    SERVICE_GRANT_BUDGET_DAILY_USDC: cfg.SERVICE_GRANT_BUDGET_DAILY_USDC,
  };
  if (cfg.SERVICE_DEPOSIT_ADDRESS) out.SERVICE_DEPOSIT_ADDRESS = cfg.SERVICE_DEPOSIT_ADDRESS;
  if (cfg.SERVICE_MAINNET_DEPOSIT_ADDRESS) out.SERVICE_MAINNET_DEPOSIT_ADDRESS = cfg.SERVICE_MAINNET_DEPOSIT_ADDRESS;
  if (cfg.IP_HASH_SALT) out.IP_HASH_SALT = cfg.IP_HASH_SALT;
  return out;
}

/**
 * Switches whose spec meaning is "on only when the value is exactly `true`": any other env value means off, so a typo
 * such as `yes` keeps the switch off (with a warning) rather than taking the service down.
 */
const SWITCH_KEYS: ReadonlySet<SettingKey> = new Set<SettingKey>([
  "SERVICE_MAINNET_ENABLED",
  "SERVICE_TESTNET_PROVIDER_MODELS",
]);

export interface EnvDefaultsCheck {
  /** The defaults to run with: a switch that is not exactly "true" or "false" reads as "false". */
  values: Partial<Record<SettingKey, string>>;
  /** One line per switch read as off, naming the variable and the accepted values. */
  warnings: string[];
  /** One line per unusable default, naming the variable and what it must be. */
  errors: string[];
}

/**
 * Checks every setting's env default with the same parser a stored value gets, at load: a bad default must stop
 * start-up (or, for a switch, be read as off), never be found by the first request as a 500.
 */
export function checkEnvDefaults(
  defaults: Partial<Record<SettingKey, string>>,
  networks: NetworkRegistry,
): EnvDefaultsCheck {
  const values = { ...defaults };
  const warnings: string[] = [];
  const errors: string[] = [];
  for (const key of SETTING_KEYS) {
    const text = values[key];
    if (text === undefined) continue;
    const outcome = SETTING_PARSERS[key](text, networks);
    if (outcome.ok) continue;
    if (SWITCH_KEYS.has(key)) {
      warnings.push(
        `${key}: ${JSON.stringify(text.slice(0, 32))} is not exactly "true" or "false"; read as "false" (off)`,
      );
      values[key] = "false";
    } else {
      errors.push(`${key}: ${outcome.message}`);
    }
  }
  if (errors.length === 0) {
    const settings = parseSettings(values, networks);
    if (settings.flatPriceUnits > settings.maxPriceUnits)
      errors.push("X402_FLAT_PRICE_USDC: must be at or below SERVICE_MAX_PRICE_USDC");
  }
  return { values, warnings, errors };
}

export class SettingsError extends Error {
  override name = "SettingsError";
  constructor(
    readonly key: SettingKey,
    message: string,
  ) {
    super(`${key} ${message}`);
  }
}

/** Builds the typed settings from raw text values, for `networks`; throws SettingsError naming the first invalid key. */
export function parseSettings(raw: Partial<Record<SettingKey, string>>, networks: NetworkRegistry): Settings {
  const get = <T>(key: SettingKey, fallback: string): T => {
    const outcome = SETTING_PARSERS[key](raw[key] ?? fallback, networks);
    if (!outcome.ok) throw new SettingsError(key, outcome.message);
    return outcome.value as T;
  };
  return {
    defaultNetwork: get<NetworkId>("X402_NETWORK", "solana:devnet"),
    flatPriceUnits: get<bigint>("X402_FLAT_PRICE_USDC", "0.01"),
    maxPriceUnits: get<bigint>("SERVICE_MAX_PRICE_USDC", "0.10"),
    depositAddress: get<string | null>("SERVICE_DEPOSIT_ADDRESS", ""),
    mainnetDepositAddress: get<string | null>("SERVICE_MAINNET_DEPOSIT_ADDRESS", ""),
    mainnetEnabled: get<boolean>("SERVICE_MAINNET_ENABLED", "false"),
    allowedAgents: get<ReadonlySet<string>>("SERVICE_ALLOWED_AGENTS", ""),
    testnetProviderModels: get<boolean>("SERVICE_TESTNET_PROVIDER_MODELS", "false"),
    grantAmountUnits: get<bigint>("SERVICE_GRANT_AMOUNT_USDC", "0.10"),
    grantMaxPerIp: get<number>("SERVICE_GRANT_MAX_PER_IP", "3"),
    grantBudgetDailyUnits: get<bigint>("SERVICE_GRANT_BUDGET_DAILY_USDC", "5.00"),
    ipHashSalt: raw.IP_HASH_SALT ? get<string>("IP_HASH_SALT", "") : null,
  };
}

/** True for a known setting key. */
export function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}
