import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./env";

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
