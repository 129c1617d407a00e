import { describe, expect, it } from "vitest";
import { SHIPPED_NETWORKS } from "../verify";
import { parseSettings, SETTING_PARSERS, SettingsError } from "./setting-definitions";

const KEY_A = "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9";
const KEY_B = "8wFSAv3VrwYP7Vh9pTU8DcRSPp31wH2X3VqJXm4Hk1Lb";

describe("parseSettings()", () => {
  it("applies the runbook defaults", () => {
    const s = parseSettings({}, SHIPPED_NETWORKS);
    expect(s.defaultNetwork).toBe("solana-devnet");
    expect(s.flatPriceUnits).toBe(10_000n);
    expect(s.maxPriceUnits).toBe(100_000n);
    expect(s.mainnetEnabled).toBe(false);
    expect(s.allowedAgents.size).toBe(0);
    expect(s.grantAmountUnits).toBe(100_000n);
    expect(s.grantMaxPerIp).toBe(3);
    expect(s.grantBudgetDailyUnits).toBe(5_000_000n);
  });

  it("turns the kill switch on only for exactly `true`", () => {
    expect(parseSettings({ SERVICE_MAINNET_ENABLED: "true" }, SHIPPED_NETWORKS).mainnetEnabled).toBe(true);
    expect(() => parseSettings({ SERVICE_MAINNET_ENABLED: "TRUE" }, SHIPPED_NETWORKS)).toThrow(SettingsError);
    expect(() => parseSettings({ SERVICE_MAINNET_ENABLED: "1" }, SHIPPED_NETWORKS)).toThrow(SettingsError);
  });

  it("prices 0.001 USDC at exactly 1,000 units (prices are whole atomic units, 1 USDC = 1,000,000)", () => {
    expect(parseSettings({ X402_FLAT_PRICE_USDC: "0.001" }, SHIPPED_NETWORKS).flatPriceUnits).toBe(1_000n);
  });

  it("reads the allowlist as a set of keys, blank meaning open", () => {
    expect([
      ...parseSettings({ SERVICE_ALLOWED_AGENTS: ` ${KEY_A} , ${KEY_B},` }, SHIPPED_NETWORKS).allowedAgents,
    ]).toEqual([KEY_A, KEY_B]);
    expect(parseSettings({ SERVICE_ALLOWED_AGENTS: " " }, SHIPPED_NETWORKS).allowedAgents.size).toBe(0);
  });

  it("accepts Base agents' 0x addresses in the allowlist, lower-cased as payers are", () => {
    const evm = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";
    expect([...parseSettings({ SERVICE_ALLOWED_AGENTS: `${KEY_A},${evm}` }, SHIPPED_NETWORKS).allowedAgents]).toEqual([
      KEY_A,
      evm.toLowerCase(),
    ]);
  });

  it.each([
    ["X402_FLAT_PRICE_USDC", "0"],
    ["X402_FLAT_PRICE_USDC", "-1"],
    ["X402_FLAT_PRICE_USDC", "0.0000001"],
    ["X402_FLAT_PRICE_USDC", "ten"],
    ["SERVICE_MAX_PRICE_USDC", ""],
    ["SERVICE_DEPOSIT_ADDRESS", "not-a-key"],
    ["SERVICE_MAINNET_DEPOSIT_ADDRESS", "0x0000000000000000000000000000000000000000"],
    ["SERVICE_ALLOWED_AGENTS", `${KEY_A},nope`],
    ["SERVICE_ALLOWED_AGENTS", "0x5B38Da6a701c568545dCfcB03FcB875f56beddC"],
    ["X402_NETWORK", "testnet"],
    ["SERVICE_GRANT_MAX_PER_IP", "3.5"],
    ["IP_HASH_SALT", "short"],
  ])("rejects malformed input %s=%j naming the key", (key, value) => {
    expect(() => parseSettings({ [key]: value }, SHIPPED_NETWORKS)).toThrow(new RegExp(`^${key} `));
  });
});

describe("SETTING_PARSERS", () => {
  it("accepts an empty deposit address as unset", () => {
    expect(SETTING_PARSERS.SERVICE_DEPOSIT_ADDRESS("", SHIPPED_NETWORKS)).toEqual({ ok: true, value: null });
  });
});
