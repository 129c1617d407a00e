import { describe, expect, it } from "vitest";
import { SHIPPED_NETWORKS } from "../verify";
import type { SettingSources } from "./read-settings";
import type { DeploymentFacts } from "./setting-consequences";
import { SETTING_KEYS } from "./setting-definitions";
import { settingViews, type SettingView } from "./setting-views";

const FACILITATOR = "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9";
const SALT = "a-secret-salt-nobody-may-read";
const AT = new Date("2026-01-02T03:04:05.000Z");

const facts = (over: Partial<DeploymentFacts> = {}): DeploymentFacts => ({
  production: false,
  networks: SHIPPED_NETWORKS,
  offeredNetworks: ["solana-devnet", "base-sepolia"],
  facilitatorAddress: FACILITATOR,
  generatedSecrets: [],
  ...over,
});

const DEFAULTS: SettingSources["defaults"] = {
  X402_NETWORK: "solana:devnet",
  X402_FLAT_PRICE_USDC: "0.010",
  SERVICE_MAX_PRICE_USDC: "0.10",
  SERVICE_MAINNET_ENABLED: "false",
  SERVICE_ALLOWED_AGENTS: "",
  SERVICE_TESTNET_PROVIDER_MODELS: "false",
  SERVICE_GRANT_AMOUNT_USDC: "0.10",
  SERVICE_GRANT_MAX_PER_IP: "3",
  SERVICE_GRANT_BUDGET_DAILY_USDC: "5.00",
};

function view<K extends SettingView["kind"]>(views: SettingView[], key: string): Extract<SettingView, { kind: K }> {
  return views.find((v) => v.key === key) as Extract<SettingView, { kind: K }>;
}

describe("settingViews()", () => {
  it("shows every setting once, with its label, help and kind, never its environment name as the label", () => {
    const views = settingViews({ stored: {}, defaults: DEFAULTS }, facts());
    expect(views.map((v) => v.key)).toEqual([...SETTING_KEYS]);
    for (const v of views) {
      expect(v.label).not.toBe(v.key);
      expect(v.help.length).toBeGreaterThan(20);
    }
  });

  it("gives each kind its typed value: a boolean, a canonical amount, a number, a network with its options, a list", () => {
    const views = settingViews(
      {
        stored: {
          SERVICE_ALLOWED_AGENTS: {
            value: `${FACILITATOR}, 0xAbC0000000000000000000000000000000000001`,
            updatedBy: "op",
            updatedAt: AT,
          },
        },
        defaults: DEFAULTS,
      },
      facts(),
    );
    expect(view<"boolean">(views, "SERVICE_MAINNET_ENABLED").value).toBe(false);
    expect(view<"usdc">(views, "X402_FLAT_PRICE_USDC")).toMatchObject({ value: "0.01", min: "positive" });
    expect(view<"usdc">(views, "SERVICE_GRANT_BUDGET_DAILY_USDC")).toMatchObject({ value: "5", min: "zero" });
    expect(view<"integer">(views, "SERVICE_GRANT_MAX_PER_IP")).toMatchObject({ value: 3, min: 0, max: 999_999 });
    const network = view<"network">(views, "X402_NETWORK");
    expect(network.value).toBe("solana-devnet");
    expect(network.options).toContainEqual({
      id: "solana-mainnet",
      label: "Solana mainnet",
      mainnet: true,
      offered: false,
    });
    expect(network.options).toContainEqual({
      id: "base-sepolia",
      label: "Base Sepolia",
      mainnet: false,
      offered: true,
    });
    expect(view<"keys">(views, "SERVICE_ALLOWED_AGENTS").value).toEqual([
      FACILITATOR,
      "0xAbC0000000000000000000000000000000000001",
    ]);
    expect(view<"address">(views, "SERVICE_MAINNET_DEPOSIT_ADDRESS").value).toBeNull();
  });

  it("says where a value comes from: stored (by whom, when), the environment's default, or nowhere", () => {
    const views = settingViews(
      {
        stored: { X402_FLAT_PRICE_USDC: { value: "0.02", updatedBy: "operator-key", updatedAt: AT } },
        defaults: DEFAULTS,
      },
      facts(),
    );
    expect(view(views, "X402_FLAT_PRICE_USDC")).toMatchObject({
      source: "stored",
      updatedBy: "operator-key",
      updatedAt: AT.toISOString(),
      value: "0.02",
    });
    expect(view(views, "SERVICE_MAX_PRICE_USDC")).toMatchObject({
      source: "environment",
      updatedBy: null,
      updatedAt: null,
    });
    expect(view(views, "SERVICE_MAINNET_DEPOSIT_ADDRESS")).toMatchObject({ source: "unset" });
  });

  it("flags a stored value its parser refuses, and keeps a typed value null rather than guessing", () => {
    const views = settingViews(
      { stored: { SERVICE_GRANT_MAX_PER_IP: { value: "3.5", updatedBy: null, updatedAt: AT } }, defaults: DEFAULTS },
      facts(),
    );
    expect(view<"integer">(views, "SERVICE_GRANT_MAX_PER_IP")).toMatchObject({
      value: null,
      problem: "must be a whole number",
    });
  });

  describe("a secret", () => {
    it("is never in the view, stored or from the environment: only set, and by what", () => {
      for (const sources of [
        { stored: { IP_HASH_SALT: { value: SALT, updatedBy: "op", updatedAt: AT } }, defaults: DEFAULTS },
        { stored: {}, defaults: { ...DEFAULTS, IP_HASH_SALT: SALT } },
      ]) {
        const views = settingViews(sources, facts());
        expect(JSON.stringify(views)).not.toContain(SALT);
      }
      const stored = view<"secret">(
        settingViews(
          { stored: { IP_HASH_SALT: { value: SALT, updatedBy: "op", updatedAt: AT } }, defaults: DEFAULTS },
          facts(),
        ),
        "IP_HASH_SALT",
      );
      expect(stored).toMatchObject({ set: true, origin: "stored", status: "set (stored in the settings table)" });
      expect(Object.keys(stored)).not.toContain("value");
      const fromEnv = view<"secret">(
        settingViews({ stored: {}, defaults: { ...DEFAULTS, IP_HASH_SALT: SALT } }, facts()),
        "IP_HASH_SALT",
      );
      expect(fromEnv).toMatchObject({
        set: true,
        origin: "environment",
        status: "set (from the environment, IP_HASH_SALT)",
      });
    });

    it("is set (generated in the data dir) in development when the service generated it, and says it will be otherwise", () => {
      const generated = view<"secret">(
        settingViews({ stored: {}, defaults: DEFAULTS }, facts({ generatedSecrets: ["IP_HASH_SALT"] })),
        "IP_HASH_SALT",
      );
      expect(generated).toMatchObject({ set: true, origin: "data_dir", status: "set (generated in the data dir)" });
      const notYet = view<"secret">(settingViews({ stored: {}, defaults: DEFAULTS }, facts()), "IP_HASH_SALT");
      expect(notYet).toMatchObject({
        set: false,
        origin: null,
        status: "not set: development generates one in the data dir at first use",
      });
    });

    it("is not set in production without one, whatever file a data dir holds (production never falls back to it)", () => {
      const prod = view<"secret">(
        settingViews(
          { stored: {}, defaults: DEFAULTS },
          facts({ production: true, generatedSecrets: ["IP_HASH_SALT"] }),
        ),
        "IP_HASH_SALT",
      );
      expect(prod).toMatchObject({ set: false, origin: null, status: "not set" });
    });
  });
});
