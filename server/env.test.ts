import { describe, expect, it } from "vitest";
import { assertReadyToServe, ConfigError, loadConfig } from "./env";

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
    expect(loadConfig({ ...production, VERIFIER_ALLOW_PRIVATE_NETWORKS: "true" }).verifierAllowPrivateNetworks).toBe(true);
  });

  it("requires SERVICE_BASE_URL in production (signed prepaid requests name it), naming the variable", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/SERVICE_BASE_URL: is required in production/);
    expect(loadConfig({ NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example/" }).baseUrl).toBe("https://signet.example");
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
    const production = { NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example" };
    expect(() => assertReadyToServe(loadConfig({ ...production, TRUSTED_PROXY_HOPS: "0", METRICS_TOKEN: "m".repeat(32) }))).not.toThrow();
    expect(loadConfig({ ...production, TRUSTED_PROXY_HOPS: "2" }).trustedProxyHops).toBe(2);
    expect(loadConfig({}).trustedProxyHops).toBe(0);
    expect(() => assertReadyToServe(loadConfig({}))).not.toThrow();
  });

  it("refuses production without METRICS_TOKEN, in one line naming it; development may leave /metrics open", () => {
    const production = { NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example", TRUSTED_PROXY_HOPS: "0" };
    expect(() => assertReadyToServe(loadConfig(production))).toThrow(/^METRICS_TOKEN must be set in production[^\n]*$/);
    expect(() => assertReadyToServe(loadConfig({ ...production, METRICS_TOKEN: "m".repeat(16) }))).not.toThrow();
    expect(() => assertReadyToServe(loadConfig({ TRUSTED_PROXY_HOPS: "0" }))).not.toThrow();
  });

  it("rejects malformed input: a METRICS_TOKEN under 16 characters, a SHUTDOWN_GRACE_MS that is not a whole number of ms", () => {
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow("METRICS_TOKEN");
    for (const value of ["-1", "1.5", "soon", "600001"]) expect(() => loadConfig({ SHUTDOWN_GRACE_MS: value })).toThrow("SHUTDOWN_GRACE_MS");
    expect(loadConfig({}).SHUTDOWN_GRACE_MS).toBe(20_000);
  });

  it("rejects malformed input: a SETTLEMENT_CONFIRM_WAIT_MS that is not 100 to 60000 ms, or not below PAYMENT_LEASE_MS", () => {
    for (const value of ["-1", "1.5", "soon", "99", "60001"]) expect(() => loadConfig({ SETTLEMENT_CONFIRM_WAIT_MS: value })).toThrow("SETTLEMENT_CONFIRM_WAIT_MS");
    expect(() => loadConfig({ SETTLEMENT_CONFIRM_WAIT_MS: "5000", PAYMENT_LEASE_MS: "5000" })).toThrow("SETTLEMENT_CONFIRM_WAIT_MS: must be below PAYMENT_LEASE_MS");
    expect(loadConfig({}).SETTLEMENT_CONFIRM_WAIT_MS).toBe(10_000);
  });

  it("rejects malformed input: a TRUSTED_PROXY_HOPS that is not a small whole number", () => {
    for (const value of ["-1", "1.5", "eleven", "11"]) expect(() => loadConfig({ TRUSTED_PROXY_HOPS: value })).toThrow("TRUSTED_PROXY_HOPS");
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
    expect(() => loadConfig({ X402_FLAT_PRICE_USDC: "0.50", SERVICE_MAX_PRICE_USDC: "0.10" })).toThrow(/X402_FLAT_PRICE_USDC: .*SERVICE_MAX_PRICE_USDC/);
  });
});

