import { describe, expect, it } from "vitest";
import {
  assertReadyToServe,
  ConfigError,
  envSchema,
  LEGACY_RPC_URL_VARIABLES,
  loadConfig,
  localChainPorts,
  productionOptIns,
  readSecretFiles,
  rpcUrlVariable,
  SECRET_FILE_VARIABLES,
} from "./index";
import { generateKeypair } from "../keys/parse-secret-key";
import { createNetworkRegistry, SHIPPED_NETWORK_ROWS, SHIPPED_NETWORKS, type EvmNetworkRow } from "../verify";

/** What assertReadyToServe needs beyond the proxy set-up and the metrics token, each test removing what it checks. */
const OPERATOR = generateKeypair().publicKeyBase58;
const STATED = { DATABASE_URL: "postgresql://signet@db.internal/signet", SERVICE_OPERATOR_PUBKEYS: OPERATOR };

describe("loadConfig()", () => {
  it("applies development defaults", () => {
    const cfg = loadConfig({});
    expect(cfg.PORT).toBe(3000);
    expect(cfg.baseUrl).toBe("http://localhost:3000");
    expect(cfg.verifierAllowPrivateNetworks).toBe(true);
    expect(cfg.isProduction).toBe(false);
  });

  it("closes the verifier to private networks by default in production", () => {
    const production = { NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example" };
    expect(loadConfig(production).verifierAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...production, VERIFIER_ALLOW_PRIVATE_NETWORKS: "true" }).verifierAllowPrivateNetworks).toBe(
      true,
    );
  });

  it("requires SERVICE_BASE_URL in production (signed prepaid requests name it), naming the variable", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/SERVICE_BASE_URL: is required in production/);
    expect(loadConfig({ NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example/" }).baseUrl).toBe(
      "https://signet.example",
    );
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ PORT: "", SERVICE_OPERATOR_SECRET_KEY: "" }).SERVICE_OPERATOR_SECRET_KEY).toBeUndefined();
  });

  it.each([
    [{ PORT: "0" }, "PORT"],
    [{ PORT: "abc" }, "PORT"],
    [{ VERIFIER_ALLOW_PRIVATE_NETWORKS: "yes" }, "VERIFIER_ALLOW_PRIVATE_NETWORKS"],
    [{ SERVICE_BASE_URL: "not a url" }, "SERVICE_BASE_URL"],
    [{ NODE_ENV: "staging" }, "NODE_ENV"],
  ])("rejects malformed input %j, naming the variable", (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe("assertReadyToServe()", () => {
  it("refuses production without TRUSTED_PROXY_HOPS, in one line naming it", () => {
    const production = { NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example" };
    expect(() => assertReadyToServe(loadConfig(production))).toThrow(ConfigError);
    expect(() => assertReadyToServe(loadConfig(production))).toThrow(/^TRUSTED_PROXY_HOPS[^\n]*$/);
  });

  it("accepts production with TRUSTED_PROXY_HOPS stated, even 0, and development without it (0)", () => {
    const production = { NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example", ...STATED };
    expect(() =>
      assertReadyToServe(loadConfig({ ...production, TRUSTED_PROXY_HOPS: "0", METRICS_TOKEN: "m".repeat(32) })),
    ).not.toThrow();
    expect(loadConfig({ ...production, TRUSTED_PROXY_HOPS: "2" }).trustedProxyHops).toBe(2);
    expect(loadConfig({}).trustedProxyHops).toBe(0);
    expect(() => assertReadyToServe(loadConfig({}))).not.toThrow();
  });

  it("refuses production without METRICS_TOKEN, in one line naming it; development may leave /metrics open", () => {
    const production = {
      NODE_ENV: "production",
      SERVICE_BASE_URL: "https://signet.example",
      TRUSTED_PROXY_HOPS: "0",
      ...STATED,
    };
    expect(() => assertReadyToServe(loadConfig(production))).toThrow(/^METRICS_TOKEN must be set in production[^\n]*$/);
    expect(() => assertReadyToServe(loadConfig({ ...production, METRICS_TOKEN: "m".repeat(16) }))).not.toThrow();
    expect(() => assertReadyToServe(loadConfig({ TRUSTED_PROXY_HOPS: "0" }))).not.toThrow();
  });

  it("rejects malformed input: a METRICS_TOKEN under 16 characters, a SHUTDOWN_GRACE_MS that is not a whole number of ms", () => {
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow("METRICS_TOKEN");
    for (const value of ["-1", "1.5", "soon", "600001"])
      expect(() => loadConfig({ SHUTDOWN_GRACE_MS: value })).toThrow("SHUTDOWN_GRACE_MS");
    expect(loadConfig({}).SHUTDOWN_GRACE_MS).toBe(20_000);
  });

  it("rejects malformed input: a SETTLEMENT_CONFIRM_WAIT_MS that is not 100 to 60000 ms, or not below PAYMENT_LEASE_MS", () => {
    for (const value of ["-1", "1.5", "soon", "99", "60001"])
      expect(() => loadConfig({ SETTLEMENT_CONFIRM_WAIT_MS: value })).toThrow("SETTLEMENT_CONFIRM_WAIT_MS");
    expect(() => loadConfig({ SETTLEMENT_CONFIRM_WAIT_MS: "5000", PAYMENT_LEASE_MS: "5000" })).toThrow(
      "SETTLEMENT_CONFIRM_WAIT_MS: must be below PAYMENT_LEASE_MS",
    );
    expect(loadConfig({}).SETTLEMENT_CONFIRM_WAIT_MS).toBe(10_000);
  });

  describe("in production, the database", () => {
    const production = {
      NODE_ENV: "production",
      SERVICE_BASE_URL: "https://signet.example",
      TRUSTED_PROXY_HOPS: "0",
      METRICS_TOKEN: "m".repeat(16),
      SERVICE_OPERATOR_PUBKEYS: OPERATOR,
    };

    it("refuses no DATABASE_URL, in one line naming it and the embedded database's opt-in", () => {
      expect(() => assertReadyToServe(loadConfig(production))).toThrow(
        /^DATABASE_URL must be set in production \(a PostgreSQL URL\);[^\n]*SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true$/,
      );
      expect(() =>
        assertReadyToServe(loadConfig({ ...production, SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION: "false" })),
      ).toThrow(/^DATABASE_URL must be set/);
    });

    it("takes the embedded database when SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION is true, and PostgreSQL without it", () => {
      expect(() =>
        assertReadyToServe(loadConfig({ ...production, SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION: "true" })),
      ).not.toThrow();
      expect(() => assertReadyToServe(loadConfig({ ...production, DATABASE_URL: STATED.DATABASE_URL }))).not.toThrow();
      expect(() => assertReadyToServe(loadConfig({ SIGNET_DATA_DIR: ".data" }))).not.toThrow();
    });

    it("rejects malformed input: an opt-in that is not exactly true or false, naming the variable", () => {
      for (const name of ["SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION", "SIGNET_DEV_KEYS_IN_PRODUCTION"]) {
        for (const value of ["yes", "TRUE", "1"])
          expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: must be exactly "true" or "false"`));
      }
    });
  });

  describe("in production, the dashboard's operators", () => {
    const production = {
      NODE_ENV: "production",
      SERVICE_BASE_URL: "https://signet.example",
      TRUSTED_PROXY_HOPS: "0",
      METRICS_TOKEN: "m".repeat(16),
      DATABASE_URL: STATED.DATABASE_URL,
    };

    it("refuses no SERVICE_OPERATOR_PUBKEYS (nobody could sign in), in one line naming it", () => {
      for (const listed of [undefined, " , "]) {
        expect(() => assertReadyToServe(loadConfig({ ...production, SERVICE_OPERATOR_PUBKEYS: listed }))).toThrow(
          /^SERVICE_OPERATOR_PUBKEYS must be set in production: [^\n]*nobody can sign in\)$/,
        );
      }
    });

    it("rejects malformed input: an entry that is not a base58 Solana public key, quoting it", () => {
      for (const bad of ["not-a-key", "0x" + "ab".repeat(20), OPERATOR.slice(0, -4)]) {
        expect(() =>
          assertReadyToServe(loadConfig({ ...production, SERVICE_OPERATOR_PUBKEYS: `${OPERATOR},${bad}` })),
        ).toThrow(`SERVICE_OPERATOR_PUBKEYS: "${bad}" is not a base58 Solana public key`);
      }
    });

    it("accepts one or more listed keys, and development without any (its dev sign-in key is let in)", () => {
      expect(() =>
        assertReadyToServe(
          loadConfig({
            ...production,
            SERVICE_OPERATOR_PUBKEYS: ` ${OPERATOR} , ${generateKeypair().publicKeyBase58}`,
          }),
        ),
      ).not.toThrow();
      expect(() => assertReadyToServe(loadConfig({}))).not.toThrow();
    });
  });

  it("rejects malformed input: a TRUSTED_PROXY_HOPS that is not a small whole number", () => {
    for (const value of ["-1", "1.5", "eleven", "11"])
      expect(() => loadConfig({ TRUSTED_PROXY_HOPS: value })).toThrow("TRUSTED_PROXY_HOPS");
  });
});

describe("productionOptIns()", () => {
  const production = {
    NODE_ENV: "production",
    SERVICE_BASE_URL: "https://signet.example",
    SIGNET_DATA_DIR: "/srv/signet",
  };

  it("names each opt-in production runs with, one line each, and nothing when it uses none", () => {
    expect(productionOptIns(loadConfig({ ...production, DATABASE_URL: STATED.DATABASE_URL }))).toEqual([]);
    expect(productionOptIns(loadConfig({ ...production, SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION: "true" }))).toEqual([
      "production runs on the embedded PGlite database under /srv/signet (SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION=true): one process only, no second instance",
    ]);
    expect(
      productionOptIns(
        loadConfig({ ...production, DATABASE_URL: STATED.DATABASE_URL, SIGNET_DEV_KEYS_IN_PRODUCTION: "true" }),
      ),
    ).toEqual([
      "production may run beside dev keys in /srv/signet (SIGNET_DEV_KEYS_IN_PRODUCTION=true): a local rehearsal, not a deployment",
    ]);
  });

  it("names none outside production, where both are the default way of working", () => {
    expect(
      productionOptIns(
        loadConfig({ SIGNET_EMBEDDED_DATABASE_IN_PRODUCTION: "true", SIGNET_DEV_KEYS_IN_PRODUCTION: "true" }),
      ),
    ).toEqual([]);
  });

  it("rejects malformed input: an opt-in that is not exactly true or false never reaches it", () => {
    expect(() => productionOptIns(loadConfig({ ...production, SIGNET_DEV_KEYS_IN_PRODUCTION: "on" }))).toThrow(
      ConfigError,
    );
  });
});

describe("loadConfig() on the operator settings' env defaults", () => {
  it.each([
    ["SERVICE_MAINNET_ENABLED", "yes"],
    ["SERVICE_MAINNET_ENABLED", "TRUE"],
    ["SERVICE_MAINNET_ENABLED", "1"],
    ["SERVICE_TESTNET_PROVIDER_MODELS", "on"],
    ["SIGNET_API_DIRECT", "0"],
    ["EXPLORER_ADVERTISE_RPC", "1"],
  ])("rejects malformed input: %s=%s, naming the variable (booleans are exactly true or false)", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: must be exactly "true" or "false"`));
  });

  it("keeps an exact true or false with no warning", () => {
    expect(loadConfig({ SERVICE_MAINNET_ENABLED: "true" }).SERVICE_MAINNET_ENABLED).toBe("true");
    expect(loadConfig({ SERVICE_MAINNET_ENABLED: "false" }).warnings).toEqual([]);
  });

  it.each([
    ["SERVICE_ALLOWED_AGENTS", "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9,not-a-key"],
    ["X402_FLAT_PRICE_USDC", "ten"],
    ["SERVICE_MAX_PRICE_USDC", "-1"],
    ["X402_NETWORK", "testnet"],
    ["SERVICE_DEPOSIT_ADDRESS", "not-a-key"],
    ["SERVICE_MAINNET_DEPOSIT_ADDRESS", "0x0000000000000000000000000000000000000000"],
    ["SERVICE_GRANT_AMOUNT_USDC", "0"],
    ["SERVICE_GRANT_MAX_PER_IP", "3.5"],
    ["SERVICE_GRANT_BUDGET_DAILY_USDC", "lots"],
  ])("refuses a malformed default %s=%j at load, naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\n  ${name}: `));
  });

  it("refuses a flat price above the price ceiling at load, naming both variables", () => {
    expect(() => loadConfig({ X402_FLAT_PRICE_USDC: "0.50", SERVICE_MAX_PRICE_USDC: "0.10" })).toThrow(
      /X402_FLAT_PRICE_USDC: .*SERVICE_MAX_PRICE_USDC/,
    );
  });
});

describe("readSecretFiles()", () => {
  const files: Record<string, string> = {
    "/keys/operator.json": "[1,2,3]\n",
    "/keys/empty": "\n",
    "/keys/token": "metrics-token-0123456789\r\n",
  };
  const read = (file: string) => {
    if (file in files) return files[file]!;
    throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
  };

  it("puts each file's content, without its final newline, in its variable, and drops the _FILE variable", () => {
    const env = readSecretFiles(
      { SERVICE_OPERATOR_SECRET_KEY_FILE: "/keys/operator.json", METRICS_TOKEN_FILE: "/keys/token", PORT: "3000" },
      read,
    );
    expect(env).toEqual({
      SERVICE_OPERATOR_SECRET_KEY: "[1,2,3]",
      METRICS_TOKEN: "metrics-token-0123456789",
      PORT: "3000",
    });
  });

  it("leaves an environment without _FILE variables as it is, and reads no file", () => {
    const env = { SERVICE_OPERATOR_SECRET_KEY: "abc", SIGNET_SUMMARY_FILE: "/tmp/summary" };
    expect(readSecretFiles(env, () => expect.unreachable("no file is read"))).toEqual(env);
  });

  it("refuses a variable set both ways, an unreadable file and an empty one, naming the variable and never the content", () => {
    expect(() => readSecretFiles({ LOG_SECRET_KEY: "x", LOG_SECRET_KEY_FILE: "/keys/operator.json" }, read)).toThrow(
      new ConfigError("LOG_SECRET_KEY and LOG_SECRET_KEY_FILE are both set: keep one"),
    );
    expect(() => readSecretFiles({ SESSION_SECRET_FILE: "/keys/missing" }, read)).toThrow(
      new ConfigError("SESSION_SECRET_FILE: cannot read /keys/missing (ENOENT)"),
    );
    expect(() => readSecretFiles({ DATABASE_URL_FILE: "/keys/empty" }, read)).toThrow(
      new ConfigError("DATABASE_URL_FILE: /keys/empty is empty"),
    );
  });

  it("covers every secret the schema reads", () => {
    for (const name of SECRET_FILE_VARIABLES) expect(Object.keys(envSchema.shape)).toContain(name);
  });
});

describe("loadConfig() and the chains' RPCs", () => {
  const PRODUCTION = { NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example" };
  const KNOWN =
    "the known ids: solana-devnet (RPC_URL_SOLANA_DEVNET), solana-mainnet (RPC_URL_SOLANA_MAINNET), base (RPC_URL_BASE), base-sepolia (RPC_URL_BASE_SEPOLIA), polygon (RPC_URL_POLYGON), polygon-amoy (RPC_URL_POLYGON_AMOY), avalanche (RPC_URL_AVALANCHE), avalanche-fuji (RPC_URL_AVALANCHE_FUJI)";

  it("names each network's RPC variable by its id: upper-cased, dashes as underscores", () => {
    expect(SHIPPED_NETWORKS.ids.map(rpcUrlVariable)).toEqual([
      "RPC_URL_SOLANA_DEVNET",
      "RPC_URL_SOLANA_MAINNET",
      "RPC_URL_BASE",
      "RPC_URL_BASE_SEPOLIA",
      "RPC_URL_POLYGON",
      "RPC_URL_POLYGON_AMOY",
      "RPC_URL_AVALANCHE",
      "RPC_URL_AVALANCHE_FUJI",
    ]);
  });

  it("reads RPC_URL_<ID> into cfg.rpcUrls by network id, and nothing else in production", () => {
    const cfg = loadConfig({
      ...PRODUCTION,
      RPC_URL_SOLANA_DEVNET: "https://devnet.example",
      RPC_URL_BASE_SEPOLIA: "https://sepolia.example/v2/key",
    });
    expect(cfg.rpcUrls).toEqual({
      "solana-devnet": "https://devnet.example",
      "base-sepolia": "https://sepolia.example/v2/key",
    });
    expect(cfg.deprecations).toEqual([]);
    expect(cfg.networks).toBe(SHIPPED_NETWORKS);
    expect(loadConfig(PRODUCTION).rpcUrls).toEqual({});
  });

  it("keeps the dev defaults: the local chains' ports, each network's when its chain runs", () => {
    // Every testnet has its local chain by default; a mainnet only when its port is set (Polygon and Avalanche have none).
    expect(loadConfig({}).rpcUrls).toEqual({
      "solana-devnet": "http://127.0.0.1:8899",
      "base-sepolia": "http://127.0.0.1:8545",
      "polygon-amoy": "http://127.0.0.1:8546",
      "avalanche-fuji": "http://127.0.0.1:8547",
    });
    const all = loadConfig({
      LOCALNET_RPC_PORT: "18899",
      LOCALNET_MAINNET_RPC_PORT: "18900",
      LOCALNET_EVM_RPC_PORT: "18545",
      LOCALNET_BASE_MAINNET_RPC_PORT: "18546",
      LOCALNET_POLYGON_AMOY_RPC_PORT: "18547",
      LOCALNET_AVALANCHE_FUJI_RPC_PORT: "18548",
    });
    expect(all.rpcUrls).toEqual({
      "solana-devnet": "http://127.0.0.1:18899",
      "solana-mainnet": "http://127.0.0.1:18900",
      base: "http://127.0.0.1:18546",
      "base-sepolia": "http://127.0.0.1:18545",
      "polygon-amoy": "http://127.0.0.1:18547",
      "avalanche-fuji": "http://127.0.0.1:18548",
    });
    expect(localChainPorts(all)).toEqual({
      "solana-devnet": 18899,
      "solana-mainnet": 18900,
      "base-sepolia": 18545,
      base: 18546,
      "polygon-amoy": 18547,
      "avalanche-fuji": 18548,
    });
    const noAnvils = {
      LOCALNET_EVM_RPC_PORT: "0",
      LOCALNET_POLYGON_AMOY_RPC_PORT: "0",
      LOCALNET_AVALANCHE_FUJI_RPC_PORT: "0",
    };
    expect(loadConfig({ ...noAnvils, RPC_URL_BASE: "http://rpc.example" }).rpcUrls).toEqual({
      "solana-devnet": "http://127.0.0.1:8899",
      base: "http://rpc.example",
    });
    // A configured RPC wins over the local chain.
    expect(loadConfig({ RPC_URL_SOLANA_DEVNET: "http://127.0.0.1:9999" }).rpcUrls["solana-devnet"]).toBe(
      "http://127.0.0.1:9999",
    );
  });

  it("still reads the RPCs' old names for this release, each with a deprecation line naming its new name", () => {
    const cfg = loadConfig({
      ...PRODUCTION,
      SOLANA_DEVNET_RPC_URL: "https://devnet.example",
      BASE_RPC_URL: "https://base.example",
    });
    expect(cfg.rpcUrls).toEqual({ "solana-devnet": "https://devnet.example", base: "https://base.example" });
    expect(cfg.deprecations).toEqual([
      "SOLANA_DEVNET_RPC_URL is deprecated and will be removed in the next release: rename it RPC_URL_SOLANA_DEVNET",
      "BASE_RPC_URL is deprecated and will be removed in the next release: rename it RPC_URL_BASE",
    ]);
    expect(Object.keys(LEGACY_RPC_URL_VARIABLES)).toEqual([
      "SOLANA_DEVNET_RPC_URL",
      "SOLANA_MAINNET_RPC_URL",
      "BASE_RPC_URL",
      "BASE_SEPOLIA_RPC_URL",
    ]);
    for (const [legacy, id] of Object.entries(LEGACY_RPC_URL_VARIABLES))
      expect(loadConfig({ ...PRODUCTION, [legacy]: "https://rpc.example" }).rpcUrls).toEqual({
        [id]: "https://rpc.example",
      });
  });

  it("takes an old and a new name set to the same URL (with the deprecation line), and refuses two different URLs in one line", () => {
    const same = loadConfig({
      ...PRODUCTION,
      BASE_SEPOLIA_RPC_URL: "https://sepolia.example",
      RPC_URL_BASE_SEPOLIA: "https://sepolia.example",
    });
    expect(same.rpcUrls).toEqual({ "base-sepolia": "https://sepolia.example" });
    expect(same.deprecations).toHaveLength(1);
    expect(() =>
      loadConfig({
        ...PRODUCTION,
        BASE_SEPOLIA_RPC_URL: "https://old.example",
        RPC_URL_BASE_SEPOLIA: "https://new.example",
      }),
    ).toThrow(
      new ConfigError(
        "BASE_SEPOLIA_RPC_URL and RPC_URL_BASE_SEPOLIA are both set, to different URLs: BASE_SEPOLIA_RPC_URL is the old name of RPC_URL_BASE_SEPOLIA; keep only RPC_URL_BASE_SEPOLIA",
      ),
    );
  });

  it("rejects malformed input: an RPC_URL_ name that names no network, in one line naming it and the known ids", () => {
    expect(() => loadConfig({ RPC_URL_ETHEREUM: "https://ethereum.example" })).toThrow(
      new ConfigError(`RPC_URL_ETHEREUM names no network this service knows; ${KNOWN}`),
    );
    // The id's own spelling is not the variable's.
    expect(() => loadConfig({ "RPC_URL_BASE-SEPOLIA": "https://sepolia.example" })).toThrow(
      /^RPC_URL_BASE-SEPOLIA names no network/,
    );
    expect(() => loadConfig({ RPC_URL_: "https://x.example" })).toThrow(/^RPC_URL_ names no network/);
  });

  it("rejects malformed input: an RPC that is not a URL, under either name, naming the variable", () => {
    expect(() => loadConfig({ RPC_URL_BASE: "mainnet.base.org" })).toThrow(
      new ConfigError("invalid environment:\n  RPC_URL_BASE: must be a URL"),
    );
    expect(() => loadConfig({ SOLANA_MAINNET_RPC_URL: "not a url" })).toThrow(
      new ConfigError("invalid environment:\n  SOLANA_MAINNET_RPC_URL: must be a URL"),
    );
  });

  it("reads the networks of the registry it is given: a fifth network's RPC by its own variable", () => {
    const fifth: EvmNetworkRow = {
      ...(SHIPPED_NETWORKS.get("base-sepolia") as EvmNetworkRow),
      id: "test-chain",
      caip2: "eip155:31337",
      chainId: 31337,
      x402V1Name: "test-chain",
      aliases: ["test-chain"],
      label: "Test chain",
    };
    const networks = createNetworkRegistry([...SHIPPED_NETWORK_ROWS, fifth]);
    const cfg = loadConfig({ RPC_URL_TEST_CHAIN: "http://127.0.0.1:8600", X402_NETWORK: "test-chain" }, { networks });
    expect(cfg.networks).toBe(networks);
    expect(cfg.rpcUrls["test-chain"]).toBe("http://127.0.0.1:8600");
    // The shipped registry knows no such network, nor may the settings name it there.
    expect(() => loadConfig({ RPC_URL_TEST_CHAIN: "http://127.0.0.1:8600" })).toThrow(
      /^RPC_URL_TEST_CHAIN names no network/,
    );
    expect(() => loadConfig({ X402_NETWORK: "test-chain" })).toThrow(
      /X402_NETWORK: must be devnet, mainnet, base, base-sepolia, polygon, polygon-amoy, avalanche, avalanche-fuji or a CAIP-2 id/,
    );
    // An old name of a network the registry does not hold is refused, not dropped.
    const solanaOnly = createNetworkRegistry(SHIPPED_NETWORK_ROWS.filter((r) => r.family === "svm"));
    expect(() => loadConfig({ BASE_RPC_URL: "https://base.example" }, { networks: solanaOnly })).toThrow(
      /^BASE_RPC_URL names the RPC of network base, which this service does not take payment on/,
    );
  });
});
