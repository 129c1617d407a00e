// The one validated config: every environment variable the service reads is parsed here, once.
// Operator-tunable values live in the settings table (changed at run time); env only seeds their defaults.
import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { checkEnvDefaults, envDefaults } from "../settings/setting-definitions";
import { isBase58PublicKey, SHIPPED_NETWORKS, type NetworkId, type NetworkRegistry } from "../verify";

/** The one boolean form every variable takes: exactly "true" or "false" (the error names the variable). */
const booleanString = z
  .enum(["true", "false"], { message: 'must be exactly "true" or "false"' })
  .transform((v) => v === "true");

/** A boolean that seeds an operator setting: exactly "true" or "false", kept as the text the setting stores. */
const switchString = z.enum(["true", "false"], { message: 'must be exactly "true" or "false"' });

/** A TCP port, 1 to 65535. */
const port = z.coerce.number().int().min(1).max(65_535);

export const envSchema = z.object({
  NODE_ENV: z
    .enum(["development", "test", "production"])
    .default("development")
    .describe(
      "`production` refuses to start without configured keys and closes the hosted verifier to private networks; " +
        "`npm start` always runs as `production`.",
    ),
  PORT: port.default(3000).describe("HTTP port of `npm run dev` / `npm start`."),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .optional()
    .describe("The log's level; default info, silent under NODE_ENV=test."),
  SIGNET_DATA_DIR: z
    .string()
    .min(1)
    .default(".data")
    .describe("Where dev keys, the embedded database and the localnet snapshot live. Git-ignored."),
  SERVICE_BASE_URL: z
    .url()
    .optional()
    .describe(
      "Public origin of this service: used in links, as the verifier's default `endpoint`, and named in every " +
        "signed prepaid request (a signature is good on this deployment only). Dev: http://localhost:$PORT; " +
        "production: required.",
    ),
  SERVICE_OPERATOR_SECRET_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      "base58 Ed25519 key (32-byte seed or 64-byte Solana secret key) that signs receipts; must differ from every " +
        "other service key.",
    ),
  SERVICE_OPERATOR_RETIRED_KEYS: z
    .string()
    .default("")
    .describe(
      "The operator's retired keys, once SERVICE_OPERATOR_SECRET_KEY was rotated: comma-separated `<base58 public " +
        "key>@<retired at>`, the time as ISO 8601 with a zone (`2026-05-01T00:00:00Z`) or 13-digit Unix ms. " +
        "Published with the current key: a receipt a retired key signed verifies only when its timestamp is before " +
        "that key's retirement.",
    ),
  VERIFIER_SECRET_KEY: z
    .string()
    .min(1)
    .optional()
    .describe("base58 Ed25519 key that signs hosted-verifier verdicts; must differ from every other service key."),
  VERIFIER_ALLOW_PRIVATE_NETWORKS: booleanString
    .optional()
    .describe("Lets the hosted verifier fetch loopback/private addresses. Defaults to true outside production."),
  LOG_SECRET_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      "base58 Ed25519 key (same forms as the operator key) that signs the receipt log's checkpoints; must differ " +
        "from every other service key.",
    ),
  LOG_PREVIOUS_SECRET_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      "During a rotation of LOG_SECRET_KEY, the log's previous key (same forms): it co-signs every checkpoint " +
        "under the same origin, so monitors and witnesses that pin it keep verifying while they move to the new " +
        "key. Unset it to end the transition. Must differ from LOG_SECRET_KEY and from every other service key.",
    ),
  LOG_ORIGIN: z
    .string()
    .regex(/^[^\s+]+$/, "must be non-empty, without spaces or '+' (e.g. signet.example.com/log)")
    .optional()
    .describe(
      "The log's origin line and key name; default: SERVICE_BASE_URL's host and path without the scheme, plus " +
        "`/log`.",
    ),
  LOG_WITNESS_KEYS: z
    .string()
    .default("")
    .describe(
      "Comma-separated witness verifier keys (`<name>+<id>+<base64>`, type 0x04) whose cosignatures the log " +
        "accepts and publishes.",
    ),
  LOG_PUBLISH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(10_000)
    .default(1_000)
    .describe("How often the log's sequencer runs: entries staged by then get their indices and a signed checkpoint."),
  DATABASE_URL: z
    .string()
    .min(1)
    .optional()
    .describe(
      "PostgreSQL URL. Unset → embedded PGlite under SIGNET_DATA_DIR, which production refuses unless " +
        "SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION is true.",
    ),
  SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION: booleanString
    .default(false)
    .describe(
      "Lets production run without DATABASE_URL, on the embedded PGlite under SIGNET_DATA_DIR: one process only, " +
        "no second instance, no managed backups. `npm start` then logs a warning at every start.",
    ),
  SIGNET_DEV_KEYS_IN_PRODUCTION: booleanString
    .default(false)
    .describe(
      "Lets production start although SIGNET_DATA_DIR holds dev keys (the files `npm run dev` generates): only " +
        "for a local rehearsal of production on the dev keys (`npm run preview` sets it), never a deployment. " +
        "Logged at every start.",
    ),

  // Chains. Each network's RPC is RPC_URL_<ID> (read by readRpcUrls, below the schema). Dev defaults point the
  // networks the local chains play at them; production has no placeholder RPCs for money.
  LOCALNET_RPC_PORT: port
    .default(8899)
    .describe("Port of the local Solana chain that `npm run dev` starts (plays devnet)."),
  LOCALNET_MAINNET_RPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(0)
    .describe("Port of the second local chain that plays mainnet (dev and tests only; 0 = not started)."),
  FACILITATOR_SECRET_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The facilitator's fee-payer key (base58 or Solana CLI JSON); also the devnet deposit address. Must differ " +
        "from every other service key.",
    ),

  // Base. Dev defaults point Base Sepolia at the local anvil chain; production must configure RPCs.
  FACILITATOR_EVM_SECRET_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The facilitator's EVM key (0x hex): gas payer and the EVM deposit address. Dev: generated into the data " +
        "dir. Its 32 bytes must differ from every other service key's secret (checked when an EVM network has an " +
        "RPC).",
    ),
  SERVICE_EVM_DEPOSIT_ADDRESS: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x EVM address")
    .optional()
    .describe("Must equal the EVM key's address when set (a typo would send every payment elsewhere)."),
  LOCALNET_EVM_RPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8545)
    .describe(
      "Port of the local anvil chain that `npm run dev` starts (plays Base Sepolia, chain id 84532; 0 = not " +
        "started).",
    ),
  LOCALNET_BASE_MAINNET_RPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(0)
    .describe("Port of a second anvil chain that plays Base mainnet (dev and tests only; 0 = not started)."),
  LOCALNET_POLYGON_AMOY_RPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8546)
    .describe(
      "Port of the local anvil chain that `npm run dev` starts to play Polygon Amoy (chain id 80002; 0 = not " +
        "started).",
    ),
  LOCALNET_AVALANCHE_FUJI_RPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8547)
    .describe(
      "Port of the local anvil chain that `npm run dev` starts to play Avalanche Fuji (chain id 43113; 0 = not " +
        "started).",
    ),

  // Upstream model provider.
  UPSTREAM_BASE_URL: z.url().default("https://openrouter.ai/api/v1").describe("The OpenAI-compatible model provider."),
  UPSTREAM_API_KEY: z
    .string()
    .min(1)
    .optional()
    .describe("The provider's key; unset, only the built-in `local/echo-1` is offered."),
  UPSTREAM_PROVIDER_NAME: z
    .string()
    .min(1)
    .max(64)
    .default("openrouter")
    .describe("The receipt's `upstream` for provider calls."),
  UPSTREAM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(30_000)
    .describe("Upstream time limit (for a stream: to its start, and between two chunks)."),
  HEALTH_PROBE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(2_000)
    .describe(
      "Time limit of each readiness probe (database, each chain, fee payer, model provider, receipt log): a part " +
        "slower than this reads as down. Keep it under the load balancer's health-check timeout.",
    ),
  LOCAL_MODEL_STREAM_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000)
    .default(15)
    .describe("Pause between the built-in model's streamed tokens, so a local stream behaves like one."),

  // Defaults of the operator settings. The settings table overrides them at run time.
  X402_NETWORK: z
    .string()
    .min(1)
    .default("solana:devnet")
    .describe("Setting default: the network when the body names none."),
  X402_FLAT_PRICE_USDC: z.string().min(1).default("0.01").describe("Setting default: the price of every call."),
  SERVICE_MAX_PRICE_USDC: z.string().min(1).default("0.10").describe("Setting default: hard ceiling on the price."),
  SERVICE_DEPOSIT_ADDRESS: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Setting default: the devnet deposit address; must equal the facilitator key's address (start-up fails " +
        "otherwise). Unset: that address.",
    ),
  SERVICE_MAINNET_DEPOSIT_ADDRESS: z
    .string()
    .min(1)
    .optional()
    .describe("Setting default: the mainnet deposit address (may differ from the fee payer)."),
  SERVICE_MAINNET_ENABLED: switchString
    .default("false")
    .describe("Whether mainnets take payments (the kill switch's default; the dashboard turns it at run time)."),
  SERVICE_ALLOWED_AGENTS: z
    .string()
    .default("")
    .describe(
      "Setting default: comma-separated payers allowed on mainnet (Solana and Base), base58 keys or 0x addresses; " +
        "empty is open.",
    ),
  SERVICE_TESTNET_PROVIDER_MODELS: switchString
    .default("false")
    .describe(
      "Whether testnets offer the provider's models too (default: the built-in model only; faucet USDC is free).",
    ),
  SERVICE_GRANT_AMOUNT_USDC: z
    .string()
    .min(1)
    .default("0.10")
    .describe("Setting default: the sponsored first balance a grant credits."),
  SERVICE_GRANT_MAX_PER_IP: z.string().min(1).default("3").describe("Setting default: grants per hashed client IP."),
  SERVICE_GRANT_BUDGET_DAILY_USDC: z
    .string()
    .min(1)
    .default("5.00")
    .describe("Setting default: the grants' budget per UTC day."),
  IP_HASH_SALT: z
    .string()
    .min(16)
    .optional()
    .describe(
      "Secret salt for hashing client IPs (grants). Dev: generated into the data dir; production: required for " +
        "grants.",
    ),

  // Prepaid credits and grants.
  PREPAID_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(600)
    .describe("Signed prepaid requests per agent per minute, counted in the database (all instances share it)."),
  PREPAID_IP_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1_200)
    .describe(
      "Signed prepaid requests per client IP per minute, all agents together, counted in the database: each costs " +
        "a statement before its credit is known, and fresh keys are free to make. The default leaves two agents " +
        "behind one address their full per-agent rate. Agents behind one address are counted over up to 32 rows so " +
        "they do not queue on one: under concurrency a window may admit under 1% past the limit (none below 200).",
    ),
  PREPAID_TOPUP_MAX_USDC: z.string().min(1).default("100").describe("Largest x402 credit top-up, USDC."),
  TRUSTED_PROXY_HOPS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe(
      "Reverse proxies in front of the service that append to X-Forwarded-For. 0: clients connect to this server " +
        "directly and the client IP is the connection's own address. Required in production, where a wrong guess " +
        "either trusts a client-written header or counts every client as the proxy.",
    ),

  // Crash recovery.
  PAYMENT_LEASE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(120_000)
    .describe(
      "How long a payment may sit claimed (settling) or settled (serving) before a retry with the same header " +
        "takes it over: the process that held it is presumed dead. Must exceed the upstream time limit.",
    ),
  SETTLEMENT_CONFIRM_WAIT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .optional()
    .describe(
      "How long a settlement waits to see its transaction confirmed (Solana: `confirmed` or stronger; Base: a " +
        "receipt) before the payment is `pending` and the client is told to retry (default " +
        "DEFAULT_SETTLEMENT_CONFIRM_WAIT_MS). Set explicitly, it must be below PAYMENT_LEASE_MS: a claim's lease " +
        "must outlast its settle wait.",
    ),
  PAID_ANSWER_RETENTION_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 30)
    .default(24)
    .describe(
      "How long a served paid call's answer is kept, hours: the payer's repeat of the same request (same payment " +
        "header, same body) within it gets the stored answer and receipt again; after it, 409 payment_replay. 0 " +
        "keeps none.",
    ),
  SIGNET_CHAOS_CRASH_AT: z
    .enum([
      "after_verify",
      "after_settle",
      "after_credit",
      "after_hold",
      "during_inference",
      "during_stream",
      "after_debit",
      "before_response",
    ])
    .optional()
    .describe("Tests only: SIGKILL this process when the paid flow reaches the named step (the chaos suite)."),

  EXPLORER_ADVERTISE_RPC: booleanString
    .optional()
    .describe(
      "Whether the explorer may tell browsers this service's chain RPC URLs. Default: true outside production, " +
        "false in production, where an RPC URL often carries a provider API key; browsers then use the public RPCs " +
        "or one typed in.",
    ),

  // Operator dashboard.
  SERVICE_OPERATOR_PUBKEYS: z
    .string()
    .default("")
    .describe(
      "Comma-separated base58 Solana keys allowed to sign in to the dashboard; production refuses to start " +
        "without one.",
    ),
  SESSION_SECRET: z
    .string()
    .min(32)
    .optional()
    .describe(
      "HMAC key for operator session cookies (≥ 32 chars); dev: generated into the data dir; production: " +
        "required.",
    ),

  // Operations.
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe(
      "Bearer token that `GET /metrics` requires and that `GET /api/health` needs to show its parts' detail (≥ 16 " +
        "chars); required in production, both open in development when unset.",
    ),
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(20_000)
    .describe(
      "How long a SIGTERM lets in-flight requests finish before the process exits anyway (crash recovery covers " +
        "the rest).",
    ),
  SIGNET_API_DIRECT: booleanString
    .default(true)
    .describe(
      "Whether `npm start` serves the hot API routes (paid chat, prepaid inference, hosted verify) straight from " +
        "their built route handlers, without Next's request pipeline. Read by the front server (bin/start/serve-next.ts).",
    ),
  HOSTNAME: z
    .string()
    .min(1)
    .default("localhost")
    .describe("The host name the front server (bin/start/serve-next.ts) tells Next it serves."),
  SIGNET_NEXT_DIST_DIR: z
    .string()
    .min(1)
    .default(".next")
    .describe(
      "Where Next's build lives (next.config.mjs reads the same variable): `npm start` serves the build from " +
        "here.",
    ),
});

type RawEnv = z.infer<typeof envSchema>;

/**
 * A healthy cluster confirms in 1 to 2 s; 10 s covers a congested one through four re-broadcasts, yet answers well
 * inside a client's usual 30 s HTTP timeout. Tests that shorten PAYMENT_LEASE_MS to play a dead server keep it.
 */
const DEFAULT_SETTLEMENT_CONFIRM_WAIT_MS = 10_000;

export interface Config extends RawEnv {
  isProduction: boolean;
  /** LOG_LEVEL, or its default (info; silent under NODE_ENV=test). */
  logLevel: NonNullable<RawEnv["LOG_LEVEL"]>;
  dataDir: string;
  baseUrl: string;
  verifierAllowPrivateNetworks: boolean;
  /** SETTLEMENT_CONFIRM_WAIT_MS, 10 s when unset. */
  SETTLEMENT_CONFIRM_WAIT_MS: number;
  /** TRUSTED_PROXY_HOPS, 0 when unset outside production. */
  trustedProxyHops: number;
  /** The networks the service takes payment on: the registry it was configured with. */
  networks: NetworkRegistry;
  /**
   * The RPC of each network that has one, by network id: RPC_URL_<ID>, or in dev the local chain that plays it. A
   * network without one (production without the variable) is absent, and not offered.
   */
  rpcUrls: Readonly<Partial<Record<NetworkId, string>>>;
  /** Values read by their spec meaning rather than as written (a switch set to `yes` is off), one line each. */
  warnings: readonly string[];
  /** Deprecated variables the environment still uses, one line each, logged as warnings at start. */
  deprecations: readonly string[];
}

export interface ConfigOptions {
  /** The networks the service takes payment on; default: this release's (SHIPPED_NETWORKS). */
  networks?: NetworkRegistry;
}

/** The variable that names a network's RPC: RPC_URL_ and its id upper-cased, dashes as underscores (RPC_URL_BASE_SEPOLIA). */
export function rpcUrlVariable(id: NetworkId): string {
  return `RPC_URL_${id.toUpperCase().replaceAll("-", "_")}`;
}

const RPC_URL_PREFIX = "RPC_URL_";

/**
 * The names the RPCs had before RPC_URL_<ID>. Still read for this release, with a warning at every start; removed in
 * the next. Set beside its new name, it must hold the same URL.
 */
export const LEGACY_RPC_URL_VARIABLES: Readonly<Record<string, NetworkId>> = {
  SOLANA_DEVNET_RPC_URL: "solana-devnet",
  SOLANA_MAINNET_RPC_URL: "solana-mainnet",
  BASE_RPC_URL: "base",
  BASE_SEPOLIA_RPC_URL: "base-sepolia",
};

/** The variables that give a local chain's port (0 = not started). */
export type LocalChainPortVariable =
  | "LOCALNET_RPC_PORT"
  | "LOCALNET_MAINNET_RPC_PORT"
  | "LOCALNET_EVM_RPC_PORT"
  | "LOCALNET_BASE_MAINNET_RPC_PORT"
  | "LOCALNET_POLYGON_AMOY_RPC_PORT"
  | "LOCALNET_AVALANCHE_FUJI_RPC_PORT";

/**
 * The local chains `npm run dev` and the tests start, by the network each plays: outside production a network without
 * an RPC variable uses the one listening on its port variable (0 = not started). The testnets have a chain by default;
 * the mainnets (Polygon's and Avalanche's have none) only when their port is set.
 */
export const LOCAL_CHAIN_PORT_VARIABLES: Readonly<Record<NetworkId, LocalChainPortVariable>> = {
  "solana-devnet": "LOCALNET_RPC_PORT",
  "solana-mainnet": "LOCALNET_MAINNET_RPC_PORT",
  "base-sepolia": "LOCALNET_EVM_RPC_PORT",
  base: "LOCALNET_BASE_MAINNET_RPC_PORT",
  "polygon-amoy": "LOCALNET_POLYGON_AMOY_RPC_PORT",
  "avalanche-fuji": "LOCALNET_AVALANCHE_FUJI_RPC_PORT",
};

/** The port of each local chain `cfg` names, by the network it plays (0 = not started); only networks of `cfg.networks`. */
export function localChainPorts(
  cfg: Pick<Config, LocalChainPortVariable | "networks">,
): Partial<Record<NetworkId, number>> {
  return Object.fromEntries(
    Object.entries(LOCAL_CHAIN_PORT_VARIABLES).flatMap(([id, variable]) =>
      cfg.networks.byId(id) ? [[id, cfg[variable]]] : [],
    ),
  );
}

const rpcUrlSchema = z.url();

/**
 * Each network's RPC from `env` (empty values already dropped): RPC_URL_<ID>, else its name before this release (with
 * a deprecation line), else in dev its local chain. Throws a ConfigError naming the variable for an RPC_URL_ name that
 * names no network of `networks`, a value that is not a URL, or an old and a new name set to different URLs.
 */
function readRpcUrls(
  env: Readonly<Record<string, string>>,
  raw: RawEnv,
  networks: NetworkRegistry,
): { rpcUrls: Partial<Record<NetworkId, string>>; deprecations: string[] } {
  const known = () => networks.ids.map((id) => `${id} (${rpcUrlVariable(id)})`).join(", ");
  const byVariable = new Map(networks.ids.map((id) => [rpcUrlVariable(id), id]));
  for (const name of Object.keys(env)) {
    if (name.startsWith(RPC_URL_PREFIX) && !byVariable.has(name))
      throw new ConfigError(`${name} names no network this service knows; the known ids: ${known()}`);
  }
  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  const deprecations: string[] = [];
  const invalid: string[] = [];
  const checked = (variable: string, value: string): string | null => {
    if (rpcUrlSchema.safeParse(value).success) return value;
    invalid.push(`${variable}: must be a URL`);
    return null;
  };
  for (const [legacy, id] of Object.entries(LEGACY_RPC_URL_VARIABLES)) {
    const value = env[legacy];
    if (value === undefined) continue;
    if (!networks.byId(id))
      throw new ConfigError(
        `${legacy} names the RPC of network ${id}, which this service does not take payment on; the known ids: ${known()}`,
      );
    const current = env[rpcUrlVariable(id)];
    if (current !== undefined && current !== value) {
      throw new ConfigError(
        `${legacy} and ${rpcUrlVariable(id)} are both set, to different URLs: ${legacy} is the old name of ${rpcUrlVariable(id)}; keep only ${rpcUrlVariable(id)}`,
      );
    }
    deprecations.push(
      `${legacy} is deprecated and will be removed in the next release: rename it ${rpcUrlVariable(id)}`,
    );
  }
  const legacyOf = new Map(Object.entries(LEGACY_RPC_URL_VARIABLES).map(([legacy, id]) => [id, legacy]));
  for (const id of networks.ids) {
    const variable = rpcUrlVariable(id);
    const legacy = legacyOf.get(id);
    const given =
      env[variable] !== undefined
        ? checked(variable, env[variable])
        : legacy !== undefined && env[legacy] !== undefined
          ? checked(legacy, env[legacy])
          : undefined;
    if (given) rpcUrls[id] = given;
    if (given !== undefined || raw.NODE_ENV === "production") continue;
    // In dev the local chains play these networks (see README); production must configure every RPC it uses.
    const portVariable = Object.hasOwn(LOCAL_CHAIN_PORT_VARIABLES, id) ? LOCAL_CHAIN_PORT_VARIABLES[id] : undefined;
    const localPort = portVariable === undefined ? 0 : raw[portVariable];
    if (localPort > 0) rpcUrls[id] = `http://127.0.0.1:${localPort}`;
  }
  if (invalid.length > 0) throw new ConfigError(`invalid environment:\n  ${invalid.join("\n  ")}`);
  return { rpcUrls, deprecations };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The one reader of the service's environment: entry points (the route edge, `npm start`, `npm run dev`, the CLI's
 * service commands) pass its result to loadConfig, and to the children they spawn.
 */
export function processEnv(): NodeJS.ProcessEnv {
  return readSecretFiles(process.env);
}

/** The variable that names each service role's key, in the order roles are compared and named (refuse-shared-keys.ts). */
export const SERVICE_KEY_VARIABLES = [
  "SERVICE_OPERATOR_SECRET_KEY",
  "VERIFIER_SECRET_KEY",
  "LOG_SECRET_KEY",
  // Set only during a log key rotation: the previous log key, which co-signs checkpoints until the rotation ends.
  "LOG_PREVIOUS_SECRET_KEY",
  "FACILITATOR_SECRET_KEY",
  "FACILITATOR_EVM_SECRET_KEY",
] as const;

/**
 * The secrets that may come from a file instead of the environment: `<NAME>_FILE` names a file holding the value (a
 * key file `signet keygen` wrote, a systemd credential, a container secret). Its content is the value, without the
 * final newline.
 */
export const SECRET_FILE_VARIABLES = [
  ...SERVICE_KEY_VARIABLES,
  "UPSTREAM_API_KEY",
  "SESSION_SECRET",
  "IP_HASH_SALT",
  "METRICS_TOKEN",
  "DATABASE_URL",
] as const;

/**
 * `env` with each `<NAME>_FILE` of SECRET_FILE_VARIABLES replaced by `<NAME>` holding the file's content, so the
 * processes it is passed to see the value alone. Throws a ConfigError naming the variable when both are set, or the
 * file cannot be read or is empty; the error never holds the content.
 */
export function readSecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  readFile: (file: string) => string = (file) => readFileSync(file, "utf8"),
): NodeJS.ProcessEnv {
  const out = { ...env } as NodeJS.ProcessEnv;
  for (const name of SECRET_FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === "") continue;
    if (env[name] !== undefined && env[name] !== "")
      throw new ConfigError(`${name} and ${name}_FILE are both set: keep one`);
    let content: string;
    try {
      content = readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
      throw new ConfigError(`${name}_FILE: cannot read ${file} (${code})`);
    }
    const value = content.replace(/\r?\n$/, "");
    if (value.trim() === "") throw new ConfigError(`${name}_FILE: ${file} is empty`);
    out[name] = value;
    delete out[`${name}_FILE`];
  }
  return out;
}

/**
 * Parses an environment into the typed config, for the networks `options.networks` holds (default: this release's);
 * throws a ConfigError naming each bad variable.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, options: ConfigOptions = {}): Config {
  const networks = options.networks ?? SHIPPED_NETWORKS;
  // Treat empty strings as unset: `FOO=` in a shell or .env file means "not configured".
  const cleaned = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""),
  );
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n  ${lines.join("\n  ")}`);
  }
  const isProduction = result.data.NODE_ENV === "production";
  // SECURITY: the crash hook exists for the chaos suite; a production process must never be able to arm it.
  if (isProduction && result.data.SIGNET_CHAOS_CRASH_AT)
    throw new ConfigError("invalid environment:\n  SIGNET_CHAOS_CRASH_AT: must not be set in production");
  // A claim's lease must outlast its settlement's confirmation wait, or a retry would take over a claim still settling.
  if (
    result.data.SETTLEMENT_CONFIRM_WAIT_MS !== undefined &&
    result.data.SETTLEMENT_CONFIRM_WAIT_MS >= result.data.PAYMENT_LEASE_MS
  ) {
    throw new ConfigError("invalid environment:\n  SETTLEMENT_CONFIRM_WAIT_MS: must be below PAYMENT_LEASE_MS");
  }
  // SECURITY: signed prepaid requests name this origin; a guessed one would refuse every correctly signed request.
  if (isProduction && !result.data.SERVICE_BASE_URL) {
    throw new ConfigError(
      "invalid environment:\n  SERVICE_BASE_URL: is required in production (the public origin, e.g. https://signet.example.com)",
    );
  }
  const rpc = readRpcUrls(cleaned, result.data, networks);
  // The operator settings' defaults get the same parsers as stored values, here, so no request meets a bad one.
  const defaults = checkEnvDefaults(envDefaults(result.data), networks);
  if (defaults.errors.length > 0) throw new ConfigError(`invalid environment:\n  ${defaults.errors.join("\n  ")}`);
  // The switches passed their parsers above: each is exactly "true" or "false".
  const raw: RawEnv = { ...result.data, ...(defaults.values as Partial<RawEnv>) };
  return {
    ...raw,
    isProduction,
    logLevel: raw.LOG_LEVEL ?? (raw.NODE_ENV === "test" ? "silent" : "info"),
    dataDir: path.resolve(raw.SIGNET_DATA_DIR),
    baseUrl: (raw.SERVICE_BASE_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ""),
    verifierAllowPrivateNetworks: raw.VERIFIER_ALLOW_PRIVATE_NETWORKS ?? !isProduction,
    trustedProxyHops: raw.TRUSTED_PROXY_HOPS ?? 0,
    SETTLEMENT_CONFIRM_WAIT_MS: raw.SETTLEMENT_CONFIRM_WAIT_MS ?? DEFAULT_SETTLEMENT_CONFIRM_WAIT_MS,
    networks,
    rpcUrls: rpc.rpcUrls,
    warnings: defaults.warnings,
    deprecations: rpc.deprecations,
  };
}

/**
 * What production must state before it serves, beyond what parsing checks; `npm start` runs this first. Throws a
 * one-line ConfigError naming the variable.
 */
export function assertReadyToServe(cfg: Config): void {
  // SECURITY: per-IP limits read the client IP through the proxy hops; production states its set-up, never guesses.
  if (cfg.isProduction && cfg.TRUSTED_PROXY_HOPS === undefined) {
    throw new ConfigError(
      "TRUSTED_PROXY_HOPS must be set in production: 0 when clients connect to this server directly, else the number of reverse proxies in front of it",
    );
  }
  // SECURITY: /metrics shows call volumes, balances and the ledger's totals; production never serves it unauthenticated.
  if (cfg.isProduction && !cfg.METRICS_TOKEN) {
    throw new ConfigError(
      "METRICS_TOKEN must be set in production (at least 16 characters): GET /metrics requires it as a Bearer token",
    );
  }
  // The embedded database is one process's folder: a second instance, or a host that loses its disk, loses payments.
  // Production states its database, or says in so many words that it means the embedded one.
  if (cfg.isProduction && !cfg.DATABASE_URL && !cfg.SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION) {
    throw new ConfigError(
      `DATABASE_URL must be set in production (a PostgreSQL URL); the embedded PGlite database under SIGNET_DATA_DIR serves one process only, and production uses it only with SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true`,
    );
  }
  // Production never lets the dev sign-in key in: without a listed key nobody can open the dashboard or its kill switch.
  if (cfg.isProduction) {
    const listed = cfg.SERVICE_OPERATOR_PUBKEYS.split(",")
      .map((k) => k.trim())
      .filter((k) => k !== "");
    if (listed.length === 0) {
      throw new ConfigError(
        "SERVICE_OPERATOR_PUBKEYS must be set in production: the comma-separated base58 Solana keys allowed to sign in to the operator dashboard (without one, nobody can sign in)",
      );
    }
    const isKey = (k: string): boolean => isBase58PublicKey(k);
    const malformed = listed.find((k) => !isKey(k));
    if (malformed !== undefined) {
      throw new ConfigError(
        `SERVICE_OPERATOR_PUBKEYS: "${malformed.slice(0, 60)}" is not a base58 Solana public key (32 bytes); no one could sign in with it`,
      );
    }
  }
}

/**
 * What production runs with that a deployment normally would not, each allowed by its own variable: one line each,
 * for `npm start` to log as a warning at every start. Empty outside production.
 */
export function productionOptIns(cfg: Config): string[] {
  if (!cfg.isProduction) return [];
  const lines: string[] = [];
  if (!cfg.DATABASE_URL && cfg.SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION) {
    lines.push(
      `production runs on the embedded PGlite database under ${cfg.dataDir} (SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true): one process only, no second instance`,
    );
  }
  if (cfg.SIGNET_DEV_KEYS_IN_PRODUCTION) {
    lines.push(
      `production may run beside dev keys in ${cfg.dataDir} (SIGNET_DEV_KEYS_IN_PRODUCTION=true): a local rehearsal, not a deployment`,
    );
  }
  return lines;
}
