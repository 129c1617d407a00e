import { describe, expect, it } from "vitest";
import {
  createNetworkRegistry,
  SHIPPED_NETWORK_ROWS,
  SHIPPED_NETWORKS,
  SOLANA_DEVNET_CAIP2,
  SOLANA_MAINNET_CAIP2,
  type NetworkRow,
} from "../../../server/verify";
import { UsageError } from "../cli-support";
import { payingNetwork } from "./paying-network";

const shippedPayingNetwork = (name: string) => payingNetwork(name, SHIPPED_NETWORKS);

describe("payingNetwork()", () => {
  it("takes the shipped networks' names, and their exact synonyms (CAIP-2 ids, solana:devnet)", () => {
    expect(shippedPayingNetwork("devnet")).toBe("solana-devnet");
    expect(shippedPayingNetwork("mainnet")).toBe("solana-mainnet");
    expect(shippedPayingNetwork("base-sepolia")).toBe("base-sepolia");
    expect(shippedPayingNetwork("base")).toBe("base");
    expect(shippedPayingNetwork(SOLANA_DEVNET_CAIP2)).toBe("solana-devnet");
    expect(shippedPayingNetwork("solana:mainnet")).toBe("solana-mainnet");
    expect(shippedPayingNetwork(SOLANA_MAINNET_CAIP2)).toBe("solana-mainnet");
  });

  it("refuses `solana` as ambiguous, naming the two it could mean, rather than paying on devnet", () => {
    expect(() => shippedPayingNetwork("solana")).toThrow(UsageError);
    expect(() => shippedPayingNetwork(" solana ")).toThrow(
      /^--network solana is ambiguous .*: name devnet or mainnet$/,
    );
  });

  it("takes the names of the registry it is given: a network added by a row, and not one the registry lacks", () => {
    const row = {
      ...SHIPPED_NETWORKS.get("base-sepolia"),
      id: "test-evm",
      caip2: "eip155:3133713",
      chainId: 3_133_713,
      x402V1Name: "test-evm",
      aliases: ["test-evm"],
      label: "Test EVM",
    } as NetworkRow;
    const networks = createNetworkRegistry([...SHIPPED_NETWORK_ROWS, row]);
    expect(payingNetwork("test-evm", networks)).toBe("test-evm");
    expect(payingNetwork("eip155:3133713", networks)).toBe("test-evm");
    expect(() => payingNetwork("test-evm", SHIPPED_NETWORKS)).toThrow(/^unknown network test-evm: /);
    expect(() => payingNetwork("nope", networks)).toThrow(/, avalanche-fuji or test-evm$/);
  });

  it("rejects malformed input: a name the service does not know, listing the names it takes", () => {
    expect(() => shippedPayingNetwork("testnet")).toThrow(
      "unknown network testnet: name devnet, mainnet, base, base-sepolia, polygon, polygon-amoy, avalanche or avalanche-fuji",
    );
    expect(() => shippedPayingNetwork("")).toThrow(UsageError);
  });
});
