import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDataDir } from "../test/support/env";
import { evmAddressOf, loadEvmKey, parseEvmPrivateKey } from "./evm-key";

// anvil's well-known first dev account: a public test vector, never a secret.
const ANVIL_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const ANVIL_ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

describe("EVM keys", () => {
  it("parse 32 bytes of hex with or without 0x, and give the lower-case address", () => {
    expect(parseEvmPrivateKey(ANVIL_KEY)).toBe(ANVIL_KEY);
    expect(parseEvmPrivateKey(` ${ANVIL_KEY.slice(2).toUpperCase()}\n`)).toBe(ANVIL_KEY);
    expect(evmAddressOf(ANVIL_KEY)).toBe(ANVIL_ADDRESS);
  });

  it.each([
    ["too short", ANVIL_KEY.slice(0, -2)],
    ["not hex", `0x${"zz".repeat(32)}`],
    ["zero", `0x${"00".repeat(32)}`],
    ["above the curve order", `0x${"ff".repeat(32)}`],
    ["a Solana keypair file", JSON.stringify(Array.from({ length: 64 }, (_, i) => i))],
  ])("rejects malformed input: %s", (_label, text) => {
    expect(parseEvmPrivateKey(text)).toBeNull();
  });

  it("refuse to invent a key in production, naming the variable", () => {
    expect(() =>
      loadEvmKey({
        envVar: "FACILITATOR_EVM_SECRET_KEY",
        value: undefined,
        isProduction: true,
        dataDir: "/nonexistent",
        devFile: "k",
      }),
    ).toThrow(/FACILITATOR_EVM_SECRET_KEY is required in production/);
    expect(() =>
      loadEvmKey({
        envVar: "FACILITATOR_EVM_SECRET_KEY",
        value: "0x12",
        isProduction: true,
        dataDir: "/x",
        devFile: "k",
      }),
    ).toThrow(/not a valid EVM private key/);
  });

  it("generate a dev key once, private to its owner, and reuse it", () => {
    const dir = tempDataDir();
    const opts = { envVar: "X", value: undefined, isProduction: false, dataDir: dir, devFile: "evm.txt" };
    const first = loadEvmKey(opts);
    expect(loadEvmKey(opts)).toBe(first);
    expect(readFileSync(path.join(dir, "evm.txt"), "utf8").trim()).toBe(first);
    expect(statSync(path.join(dir, "evm.txt")).mode & 0o077).toBe(0);
  });
});
