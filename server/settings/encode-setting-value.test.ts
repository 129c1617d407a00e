import { describe, expect, it } from "vitest";
import { SHIPPED_NETWORKS } from "../verify";
import { encodeSettingValue, type SettingInput } from "./encode-setting-value";
import {
  SETTING_DEFINITIONS,
  SETTING_KEYS,
  SETTING_PARSERS,
  type SettingKey,
  type SettingKind,
} from "./setting-definitions";

const KEY_A = "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9";
const EVM = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4";

/** One valid typed value per kind, for the keys of that kind. */
const SAMPLE: Record<SettingKind, SettingInput> = {
  boolean: true,
  usdc: "0.05",
  integer: 7,
  network: "base-sepolia",
  keys: [KEY_A],
  address: KEY_A,
  secret: "sixteen-chars-at-least",
};

describe("encodeSettingValue()", () => {
  it.each(SETTING_KEYS)("stores a value of %s's kind as text its own parser accepts", (key) => {
    const encoded = encodeSettingValue(key, SAMPLE[SETTING_DEFINITIONS[key].kind], SHIPPED_NETWORKS);
    expect(encoded.ok).toBe(true);
    if (encoded.ok) expect(SETTING_PARSERS[key](encoded.value, SHIPPED_NETWORKS).ok).toBe(true);
  });

  it("writes a toggle as exactly true or false", () => {
    expect(encodeSettingValue("SERVICE_MAINNET_ENABLED", true, SHIPPED_NETWORKS)).toEqual({ ok: true, value: "true" });
    expect(encodeSettingValue("SERVICE_TESTNET_PROVIDER_MODELS", false, SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: "false",
    });
  });

  it("writes an amount in its one spelling, without trailing zeros", () => {
    expect(encodeSettingValue("X402_FLAT_PRICE_USDC", " 0.010 ", SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: "0.01",
    });
    expect(encodeSettingValue("SERVICE_GRANT_BUDGET_DAILY_USDC", "5.000000", SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: "5",
    });
    expect(encodeSettingValue("SERVICE_GRANT_BUDGET_DAILY_USDC", "0", SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: "0",
    });
  });

  it("writes a network as its CAIP-2 id, which the parser reads back", () => {
    expect(encodeSettingValue("X402_NETWORK", "solana-devnet", SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    });
  });

  it("writes a key list comma-separated, trimmed, blanks and repeats dropped; an empty list opens it", () => {
    expect(encodeSettingValue("SERVICE_ALLOWED_AGENTS", [` ${KEY_A} `, "", EVM, KEY_A], SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: `${KEY_A},${EVM}`,
    });
    expect(encodeSettingValue("SERVICE_ALLOWED_AGENTS", [], SHIPPED_NETWORKS)).toEqual({ ok: true, value: "" });
  });

  it("writes an empty address as unset", () => {
    expect(encodeSettingValue("SERVICE_MAINNET_DEPOSIT_ADDRESS", "  ", SHIPPED_NETWORKS)).toEqual({
      ok: true,
      value: "",
    });
  });

  it.each<[SettingKey, SettingInput, RegExp]>([
    ["SERVICE_MAINNET_ENABLED", "true", /on or off/],
    ["SERVICE_MAINNET_ENABLED", 1, /on or off/],
    ["X402_FLAT_PRICE_USDC", 0.01, /decimal/],
    ["X402_FLAT_PRICE_USDC", "0.0000001", /at most 6 decimals/],
    ["X402_FLAT_PRICE_USDC", "1e-3", /decimal/],
    ["X402_FLAT_PRICE_USDC", "-1", /decimal/],
    ["X402_FLAT_PRICE_USDC", "0", /positive/],
    ["X402_FLAT_PRICE_USDC", "1,5", /decimal/],
    ["SERVICE_MAX_PRICE_USDC", "1000000000000", /decimal/],
    ["SERVICE_GRANT_AMOUNT_USDC", "", /decimal/],
    ["SERVICE_GRANT_MAX_PER_IP", 3.5, /whole number from 0 to 999999/],
    ["SERVICE_GRANT_MAX_PER_IP", -1, /whole number/],
    ["SERVICE_GRANT_MAX_PER_IP", 1_000_000, /whole number/],
    ["SERVICE_GRANT_MAX_PER_IP", "3", /whole number/],
    ["X402_NETWORK", "devnet", /one of solana-devnet/],
    ["X402_NETWORK", "toString", /one of/],
    ["X402_NETWORK", true, /one of/],
    ["SERVICE_ALLOWED_AGENTS", KEY_A, /list of keys/],
    ["SERVICE_ALLOWED_AGENTS", [`${KEY_A},${EVM}`], /more than one key/],
    ["SERVICE_ALLOWED_AGENTS", [`${KEY_A} ${EVM}`], /more than one key/],
    ["SERVICE_ALLOWED_AGENTS", ["nope"], /neither a base58 public key nor a 0x address/],
    ["SERVICE_DEPOSIT_ADDRESS", "not-a-key", /base58 public key/],
    ["SERVICE_MAINNET_DEPOSIT_ADDRESS", ["x"], /base58 public key/],
    ["IP_HASH_SALT", "", /type the new value/],
    ["IP_HASH_SALT", "short", /at least 16 characters/],
    ["IP_HASH_SALT", false, /type the new value/],
  ])("rejects malformed input %s=%j with a message", (key, value, message) => {
    const encoded = encodeSettingValue(key, value, SHIPPED_NETWORKS);
    expect(encoded.ok).toBe(false);
    if (!encoded.ok) expect(encoded.message).toMatch(message);
  });
});
