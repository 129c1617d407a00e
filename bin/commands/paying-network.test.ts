import { describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2, SOLANA_MAINNET_CAIP2 } from "../../server/verify";
import { UsageError } from "../cli-support";
import { payingNetwork } from "./paying-network";

describe("payingNetwork()", () => {
  it("takes the four names help lists, and their exact synonyms (CAIP-2 ids, solana:devnet)", () => {
    expect(payingNetwork("devnet")).toBe("solana-devnet");
    expect(payingNetwork("mainnet")).toBe("solana-mainnet");
    expect(payingNetwork("base-sepolia")).toBe("base-sepolia");
    expect(payingNetwork("base")).toBe("base");
    expect(payingNetwork(SOLANA_DEVNET_CAIP2)).toBe("solana-devnet");
    expect(payingNetwork("solana:mainnet")).toBe("solana-mainnet");
    expect(payingNetwork(SOLANA_MAINNET_CAIP2)).toBe("solana-mainnet");
  });

  it("refuses `solana` as ambiguous, naming the two it could mean, rather than paying on devnet", () => {
    expect(() => payingNetwork("solana")).toThrow(UsageError);
    expect(() => payingNetwork(" solana ")).toThrow(/^--network solana is ambiguous .*: name devnet or mainnet$/);
  });

  it("rejects malformed input: a name the service does not know, listing the names it takes", () => {
    expect(() => payingNetwork("testnet")).toThrow("unknown network testnet: name devnet, mainnet, base, base-sepolia, polygon, polygon-amoy, avalanche or avalanche-fuji");
    expect(() => payingNetwork("")).toThrow(UsageError);
  });
});
