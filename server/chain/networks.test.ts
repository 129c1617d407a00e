import { describe, expect, it } from "vitest";
import { networkByCaip2, NETWORKS, resolveNetwork } from "./networks";

describe("resolveNetwork()", () => {
  it.each([
    ["devnet", "solana-devnet"],
    ["solana:devnet", "solana-devnet"],
    ["solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "solana-devnet"],
    ["mainnet", "solana-mainnet"],
    ["solana:mainnet", "solana-mainnet"],
    ["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana-mainnet"],
    ["base", "base"],
    ["eip155:8453", "base"],
    ["base-sepolia", "base-sepolia"],
    ["eip155:84532", "base-sepolia"],
  ])("resolves %s to %s", (name, id) => {
    expect(resolveNetwork(name)).toBe(id);
  });

  it("resolves `solana` to the default network when it is a Solana one, else devnet", () => {
    expect(resolveNetwork("solana", "solana-mainnet")).toBe("solana-mainnet");
    expect(resolveNetwork("solana", "base")).toBe("solana-devnet");
    expect(resolveNetwork("solana")).toBe("solana-devnet");
  });

  it.each([[""], ["testnet"], ["solana:testnet"], ["eip155:1"], ["toString"], ["__proto__"], ["DEVNET"]])("rejects malformed input %j", (name) => {
    expect(resolveNetwork(name)).toBeNull();
  });
});

describe("networkByCaip2()", () => {
  it("finds each network by its CAIP-2 id and nothing else", () => {
    for (const info of Object.values(NETWORKS)) expect(networkByCaip2(info.caip2)).toBe(info);
    expect(networkByCaip2("solana:devnet")).toBeNull();
  });
});
