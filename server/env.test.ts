import { describe, expect, it } from "vitest";
import { assertReadyToServe, ConfigError, parseConfig } from "./env";

describe("parseConfig()", () => {
  it("applies development defaults", () => {
    const cfg = parseConfig({});
    expect(cfg.PORT).toBe(3000);
    expect(cfg.baseUrl).toBe("http://localhost:3000");
    expect(cfg.verifierAllowPrivateNetworks).toBe(true);
    expect(cfg.isProduction).toBe(false);
  });

  it("closes the verifier to private networks by default in production", () => {
    expect(parseConfig({ NODE_ENV: "production" }).verifierAllowPrivateNetworks).toBe(false);
    expect(parseConfig({ NODE_ENV: "production", VERIFIER_ALLOW_PRIVATE_NETWORKS: "true" }).verifierAllowPrivateNetworks).toBe(true);
  });

  it("treats empty strings as unset", () => {
    expect(parseConfig({ PORT: "", SERVICE_OPERATOR_SECRET_KEY: "" }).SERVICE_OPERATOR_SECRET_KEY).toBeUndefined();
  });

  it.each([
    [{ PORT: "0" }, "PORT"],
    [{ PORT: "abc" }, "PORT"],
    [{ VERIFIER_ALLOW_PRIVATE_NETWORKS: "yes" }, "VERIFIER_ALLOW_PRIVATE_NETWORKS"],
    [{ SERVICE_BASE_URL: "not a url" }, "SERVICE_BASE_URL"],
    [{ NODE_ENV: "staging" }, "NODE_ENV"],
  ])("rejects malformed input %j, naming the variable", (env, name) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(name);
  });
});

describe("assertReadyToServe()", () => {
  it("refuses production without TRUSTED_PROXY_HOPS, in one line naming it", () => {
    expect(() => assertReadyToServe(parseConfig({ NODE_ENV: "production" }))).toThrow(ConfigError);
    expect(() => assertReadyToServe(parseConfig({ NODE_ENV: "production" }))).toThrow(/^TRUSTED_PROXY_HOPS[^\n]*$/);
  });

  it("accepts production with TRUSTED_PROXY_HOPS stated, even 0, and development without it (0)", () => {
    expect(() => assertReadyToServe(parseConfig({ NODE_ENV: "production", TRUSTED_PROXY_HOPS: "0" }))).not.toThrow();
    expect(parseConfig({ NODE_ENV: "production", TRUSTED_PROXY_HOPS: "2" }).trustedProxyHops).toBe(2);
    expect(parseConfig({}).trustedProxyHops).toBe(0);
    expect(() => assertReadyToServe(parseConfig({}))).not.toThrow();
  });

  it("rejects malformed input: a TRUSTED_PROXY_HOPS that is not a small whole number", () => {
    for (const value of ["-1", "1.5", "eleven", "11"]) expect(() => parseConfig({ TRUSTED_PROXY_HOPS: value })).toThrow("TRUSTED_PROXY_HOPS");
  });
});
