import { describe, expect, it } from "vitest";
import { addressExplorerUrl, explorerName, txExplorerUrl } from "./explorer-urls";
import {
  createNetworkRegistry,
  nativeAmountUnits,
  NetworkRegistryError,
  SHIPPED_NETWORK_ROWS,
  SHIPPED_NETWORKS,
  type EvmNetworkRow,
  type NetworkRow,
} from "./network-registry";
import * as networks from "./networks";
import { DEFAULT_ASSETS } from "@x402/evm";
import { EVM_NETWORK_CHAIN_ID_MAP } from "@x402/evm/v1";

const DEVNET_CAIP2 = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const MAINNET_CAIP2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/** A fifth EVM network, in a test only: what adding one takes is a row. */
const FIFTH: EvmNetworkRow = {
  id: "test-chain",
  caip2: "eip155:31337",
  x402V1Name: "test-chain",
  aliases: ["test-chain", "testchain"],
  family: "evm",
  chainId: 31337,
  isMainnet: false,
  usdcAsset: "0x1111111111111111111111111111111111111111",
  eip712: { name: "USDC", version: "2" },
  explorer: {
    name: "Testscan",
    txUrl: "https://testscan.example/tx/{tx}",
    addressUrl: "https://testscan.example/address/{address}",
  },
  blockTimeMs: 1_000,
  nativeCurrency: {
    name: "Ether",
    symbol: "ETH",
    decimals: 18,
    feePayerWarnBelow: "0.01",
    feePayerAlertBelow: "0.002",
  },
  label: "Test chain",
  chartColor: "#000000",
  publicRpcUrl: "https://rpc.testchain.example",
};

const shipped = (id: string): NetworkRow => SHIPPED_NETWORK_ROWS.find((r) => r.id === id)!;
const refused = (rows: readonly NetworkRow[]) => () => createNetworkRegistry(rows);

describe("createNetworkRegistry()", () => {
  it("builds a registry with a fifth network from its row alone, every lookup finding it", () => {
    const registry = createNetworkRegistry([...SHIPPED_NETWORK_ROWS, FIFTH]);
    expect(registry.ids).toEqual([
      "solana-devnet",
      "solana-mainnet",
      "base",
      "base-sepolia",
      "polygon",
      "polygon-amoy",
      "avalanche",
      "avalanche-fuji",
      "test-chain",
    ]);
    expect(registry.get("test-chain")).toBe(FIFTH);
    expect(registry.byCaip2("eip155:31337")).toBe(FIFTH);
    expect(registry.byV1Name("test-chain")).toBe(FIFTH);
    expect(registry.resolve("testchain")).toBe("test-chain");
    expect(registry.ofReceiptNetwork("eip155:31337")).toBe(FIFTH);
    expect(registry.ofFamily("evm").map((r) => r.id)).toEqual([
      "base",
      "base-sepolia",
      "polygon",
      "polygon-amoy",
      "avalanche",
      "avalanche-fuji",
      "test-chain",
    ]);
    expect(registry.mainnets.map((r) => r.id)).toEqual(["solana-mainnet", "base", "polygon", "avalanche"]);
    expect(registry.requestNames).toEqual([
      "devnet",
      "mainnet",
      "base",
      "base-sepolia",
      "polygon",
      "polygon-amoy",
      "avalanche",
      "avalanche-fuji",
      "test-chain",
    ]);
    expect(txExplorerUrl("eip155:31337", `0x${"ab".repeat(32)}`, registry)).toBe(
      `https://testscan.example/tx/0x${"ab".repeat(32)}`,
    );
    // The shipped registry does not know it.
    expect(SHIPPED_NETWORKS.byId("test-chain")).toBeNull();
    expect(txExplorerUrl("eip155:31337", `0x${"ab".repeat(32)}`)).toBeNull();
  });

  it.each<[string, readonly NetworkRow[], RegExp]>([
    [
      "a duplicate id",
      [...SHIPPED_NETWORK_ROWS, { ...FIFTH, id: "base" }],
      /^network base: id "base" is also network base's$/,
    ],
    [
      "a duplicate CAIP-2 id",
      [...SHIPPED_NETWORK_ROWS, { ...FIFTH, caip2: "eip155:8453", chainId: 8453 }],
      /^network test-chain: CAIP-2 id "eip155:8453" is also network base's$/,
    ],
    [
      "a duplicate alias",
      [...SHIPPED_NETWORK_ROWS, { ...FIFTH, aliases: ["test-chain", "devnet"] }],
      /^network test-chain: alias "devnet" is also network solana-devnet's$/,
    ],
    [
      "an alias that is another network's CAIP-2 id",
      [...SHIPPED_NETWORK_ROWS, { ...FIFTH, aliases: ["eip155:84532"] }],
      /^network test-chain: alias "eip155:84532" is also network base-sepolia's$/,
    ],
    [
      "a duplicate x402 v1 name",
      [...SHIPPED_NETWORK_ROWS, { ...FIFTH, x402V1Name: "solana" }],
      /^network test-chain: x402 v1 name "solana" is also network solana-mainnet's$/,
    ],
    [
      "a second family name in one family",
      [
        ...SHIPPED_NETWORK_ROWS,
        {
          ...shipped("solana-mainnet"),
          id: "solana-x",
          caip2: "solana:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
          x402V1Name: "solana-x",
          aliases: ["x"],
          familyName: "sol",
        },
      ],
      /^network solana-x: family svm already has its family name on network solana-devnet$/,
    ],
  ])("refuses %s, naming the network", (_what, rows, message) => {
    expect(refused(rows)).toThrow(NetworkRegistryError);
    expect(refused(rows)).toThrow(message);
  });

  it.each<[string, Partial<EvmNetworkRow>, RegExp]>([
    ["an id that is not lower-case words and dashes", { id: "Test_Chain" }, /^network Test_Chain: its id must be/],
    [
      "a CAIP-2 id that is not the chain id's",
      { caip2: "eip155:1" },
      /^network test-chain: an evm network's CAIP-2 id is eip155:<its chain id>$/,
    ],
    ["a malformed CAIP-2 id", { caip2: "eip155" }, /its CAIP-2 id "eip155" is malformed/],
    ["a USDC contract that is not an address", { usdcAsset: "0x1234" }, /its USDC contract must be a 0x address/],
    ["an EVM network without its EIP-712 domain", { eip712: { name: "", version: "2" } }, /EIP-712 domain/],
    [
      "an explorer template without its placeholder",
      { explorer: { name: "x", txUrl: "https://x.example/tx/", addressUrl: "https://x.example/a/{address}" } },
      /txUrl with \{tx\}/,
    ],
    ["a public RPC that is not https", { publicRpcUrl: "http://rpc.example" }, /public RPC must be an https URL/],
    ["a chart colour that is not #rrggbb", { chartColor: "blue" }, /chart colour/],
    ["a block time of zero", { blockTimeMs: 0 }, /block time/],
    [
      "fee payer levels with alert above warn",
      { nativeCurrency: { ...FIFTH.nativeCurrency, feePayerWarnBelow: "0.001", feePayerAlertBelow: "0.002" } },
      /fee payer levels/,
    ],
    ["an alias with surrounding spaces", { aliases: [" test-chain"] }, /aliases must be/],
  ])("rejects malformed input: %s", (_what, change, message) => {
    expect(refused([{ ...FIFTH, ...change } as EvmNetworkRow])).toThrow(message);
  });

  it("rejects malformed input: no rows, an svm row with an EVM domain, a mint that is not base58, a row that is not an object", () => {
    expect(refused([])).toThrow(/at least one row/);
    expect(
      refused([{ ...shipped("solana-devnet"), eip712: { name: "USDC", version: "2" } } as unknown as NetworkRow]),
    ).toThrow(/^network solana-devnet: an svm network has no chain id or EIP-712 domain$/);
    expect(refused([{ ...shipped("solana-devnet"), usdcAsset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" }])).toThrow(
      /USDC mint must be a base58 public key/,
    );
    expect(refused([null as unknown as NetworkRow])).toThrow(/^network #1: it is not an object$/);
  });
});

describe("SHIPPED_NETWORKS", () => {
  it("resolves every shipped row by each of its names: its aliases and its CAIP-2 id", () => {
    for (const row of SHIPPED_NETWORK_ROWS) {
      for (const name of [...row.aliases, row.caip2]) expect(SHIPPED_NETWORKS.resolve(name), name).toBe(row.id);
      expect(SHIPPED_NETWORKS.byId(row.id)).toBe(row);
      expect(SHIPPED_NETWORKS.get(row.id)).toBe(row);
      expect(SHIPPED_NETWORKS.byCaip2(row.caip2)).toBe(row);
      expect(SHIPPED_NETWORKS.byV1Name(row.x402V1Name)).toBe(row);
      expect(SHIPPED_NETWORKS.ofReceiptNetwork(row.caip2)).toBe(row);
    }
  });

  it("holds the eight shipped networks with their facts", () => {
    expect(SHIPPED_NETWORK_ROWS.map((r) => [r.id, r.caip2, r.family, r.isMainnet, r.usdcAsset, r.label])).toEqual([
      ["solana-devnet", DEVNET_CAIP2, "svm", false, "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", "Solana devnet"],
      ["solana-mainnet", MAINNET_CAIP2, "svm", true, "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "Solana mainnet"],
      ["base", "eip155:8453", "evm", true, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "Base"],
      ["base-sepolia", "eip155:84532", "evm", false, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "Base Sepolia"],
      ["polygon", "eip155:137", "evm", true, "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", "Polygon"],
      ["polygon-amoy", "eip155:80002", "evm", false, "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582", "Polygon Amoy"],
      ["avalanche", "eip155:43114", "evm", true, "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", "Avalanche"],
      ["avalanche-fuji", "eip155:43113", "evm", false, "0x5425890298aed601595a70AB815c96711a31Bc65", "Avalanche Fuji"],
    ]);
    expect(SHIPPED_NETWORKS.get("base").eip712).toEqual({ name: "USD Coin", version: "2" });
    expect(SHIPPED_NETWORKS.get("base-sepolia").eip712).toEqual({ name: "USDC", version: "2" });
    // Each USDC's own domain: Amoy's FiatToken calls itself "USDC", Fuji's "USD Coin".
    expect(SHIPPED_NETWORKS.get("polygon").eip712).toEqual({ name: "USD Coin", version: "2" });
    expect(SHIPPED_NETWORKS.get("polygon-amoy").eip712).toEqual({ name: "USDC", version: "2" });
    expect(SHIPPED_NETWORKS.get("avalanche").eip712).toEqual({ name: "USD Coin", version: "2" });
    expect(SHIPPED_NETWORKS.get("avalanche-fuji").eip712).toEqual({ name: "USD Coin", version: "2" });
    expect(SHIPPED_NETWORKS.ofFamily("evm").map((r) => [r.chainId, r.blockTimeMs, r.nativeCurrency.symbol])).toEqual([
      [8453, 2_000, "ETH"],
      [84532, 2_000, "ETH"],
      [137, 2_000, "POL"],
      [80002, 2_000, "POL"],
      [43114, 2_000, "AVAX"],
      [43113, 2_000, "AVAX"],
    ]);
    const colours = SHIPPED_NETWORK_ROWS.map((r) => r.chartColor);
    expect(new Set(colours).size).toBe(colours.length);
  });

  it("derives the x402 v1 names @x402/evm's and @x402/svm's v1 schemes take", () => {
    expect(Object.fromEntries(SHIPPED_NETWORK_ROWS.map((r) => [r.id, r.x402V1Name]))).toEqual({
      "solana-devnet": "solana-devnet",
      "solana-mainnet": "solana",
      "base-sepolia": "base-sepolia",
      base: "base",
      polygon: "polygon",
      "polygon-amoy": "polygon-amoy",
      avalanche: "avalanche",
      "avalanche-fuji": "avalanche-fuji",
    });
    expect(SHIPPED_NETWORKS.byV1Name("solana-mainnet")).toBeNull();
    expect(SHIPPED_NETWORKS.byV1Name(8453)).toBeNull();
  });

  it("agrees with @x402/evm: each EVM row's v1 name is the one its v1 scheme maps to its chain id, its USDC the stock default asset where there is one", () => {
    for (const row of SHIPPED_NETWORKS.ofFamily("evm") as readonly EvmNetworkRow[]) {
      expect((EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>)[row.x402V1Name], row.id).toBe(row.chainId);
      const stock = (
        DEFAULT_ASSETS as Record<string, readonly { asset: string; name: string; version: string }[] | undefined>
      )[row.caip2]?.[0];
      if (stock)
        expect({ asset: stock.asset.toLowerCase(), name: stock.name, version: stock.version }, row.id).toEqual({
          asset: row.usdcAsset.toLowerCase(),
          ...row.eip712,
        });
    }
    // The stock map covers Base, Base Sepolia, Polygon and Avalanche; Amoy's and Fuji's come from x402 1.2's v1 config.
    expect(
      SHIPPED_NETWORKS.ofFamily("evm")
        .filter((r) => Object.hasOwn(DEFAULT_ASSETS, r.caip2))
        .map((r) => r.id),
    ).toEqual(["base", "base-sepolia", "polygon", "avalanche"]);
  });

  it("derives the explorer links and names of every shipped network", () => {
    const sig = "5gMv".padEnd(88, "A");
    const hash = `0x${"ab".repeat(32)}`;
    const account = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
    const evmAccount = `0x${"cd".repeat(20)}`;
    expect(
      SHIPPED_NETWORK_ROWS.map((r) => [
        r.id,
        explorerName(r.caip2),
        r.family === "evm" ? txExplorerUrl(r.caip2, hash) : txExplorerUrl(r.caip2, sig),
        r.family === "evm" ? addressExplorerUrl(r.caip2, evmAccount) : addressExplorerUrl(r.caip2, account),
      ]),
    ).toEqual([
      [
        "solana-devnet",
        "Solana Explorer (devnet)",
        `https://explorer.solana.com/tx/${sig}?cluster=devnet`,
        `https://explorer.solana.com/address/${account}?cluster=devnet`,
      ],
      [
        "solana-mainnet",
        "Solana Explorer (mainnet)",
        `https://explorer.solana.com/tx/${sig}`,
        `https://explorer.solana.com/address/${account}`,
      ],
      ["base", "Basescan", `https://basescan.org/tx/${hash}`, `https://basescan.org/address/${evmAccount}`],
      [
        "base-sepolia",
        "Basescan (Sepolia)",
        `https://sepolia.basescan.org/tx/${hash}`,
        `https://sepolia.basescan.org/address/${evmAccount}`,
      ],
      ["polygon", "Polygonscan", `https://polygonscan.com/tx/${hash}`, `https://polygonscan.com/address/${evmAccount}`],
      [
        "polygon-amoy",
        "Polygonscan (Amoy)",
        `https://amoy.polygonscan.com/tx/${hash}`,
        `https://amoy.polygonscan.com/address/${evmAccount}`,
      ],
      ["avalanche", "Snowtrace", `https://snowtrace.io/tx/${hash}`, `https://snowtrace.io/address/${evmAccount}`],
      [
        "avalanche-fuji",
        "Snowtrace (Fuji)",
        `https://testnet.snowtrace.io/tx/${hash}`,
        `https://testnet.snowtrace.io/address/${evmAccount}`,
      ],
    ]);
  });

  it("keeps the verifier's constants (server/verify/networks.ts) equal to today's", () => {
    expect(networks.SOLANA_DEVNET_CAIP2).toBe(DEVNET_CAIP2);
    expect(networks.SOLANA_MAINNET_CAIP2).toBe(MAINNET_CAIP2);
    expect(networks.BASE_MAINNET_CAIP2).toBe("eip155:8453");
    expect(networks.BASE_SEPOLIA_CAIP2).toBe("eip155:84532");
    expect(networks.USDC_MINT_BY_SOLANA_CLUSTER).toEqual({
      devnet: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      mainnet: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    });
    expect(networks.DEFAULT_SOLANA_RPC_BY_CLUSTER).toEqual({
      devnet: "https://api.devnet.solana.com",
      mainnet: "https://api.mainnet-beta.solana.com",
    });
    expect(networks.USDC_CONTRACT_BY_EVM_NETWORK).toEqual({
      "eip155:8453": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      "eip155:84532": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      "eip155:137": "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
      "eip155:80002": "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582",
      "eip155:43114": "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E",
      "eip155:43113": "0x5425890298aed601595a70AB815c96711a31Bc65",
    });
    expect(networks.DEFAULT_EVM_RPC_BY_NETWORK).toEqual({
      "eip155:8453": "https://mainnet.base.org",
      "eip155:84532": "https://sepolia.base.org",
      "eip155:137": "https://polygon-rpc.com",
      "eip155:80002": "https://rpc-amoy.polygon.technology",
      "eip155:43114": "https://api.avax.network/ext/bc/C/rpc",
      "eip155:43113": "https://api.avax-test.network/ext/bc/C/rpc",
    });
    expect(networks.isKnownEvmNetwork("eip155:84532")).toBe(true);
    expect(networks.isKnownEvmNetwork("eip155:1")).toBe(false);
  });

  it("get() throws for an id the registry does not hold", () => {
    expect(() => SHIPPED_NETWORKS.get("ethereum")).toThrow(RangeError);
  });
});

describe("NetworkRegistry.resolve() (what resolveNetwork accepted)", () => {
  it.each([
    ["devnet", "solana-devnet"],
    ["solana:devnet", "solana-devnet"],
    [DEVNET_CAIP2, "solana-devnet"],
    ["mainnet", "solana-mainnet"],
    ["solana:mainnet", "solana-mainnet"],
    ["solana:mainnet-beta", "solana-mainnet"],
    [MAINNET_CAIP2, "solana-mainnet"],
    ["base", "base"],
    ["eip155:8453", "base"],
    ["base-sepolia", "base-sepolia"],
    ["eip155:84532", "base-sepolia"],
    ["  devnet ", "solana-devnet"],
  ])("resolves %j to %s", (name, id) => {
    expect(SHIPPED_NETWORKS.resolve(name)).toBe(id);
  });

  it.each([
    [undefined, "solana-devnet"],
    ["solana-devnet", "solana-devnet"],
    ["solana-mainnet", "solana-mainnet"],
    ["base", "solana-devnet"],
    ["base-sepolia", "solana-devnet"],
  ])(
    "resolves `solana` with the default %s to %s (the default when it is a Solana network, else devnet)",
    (fallback, id) => {
      expect(SHIPPED_NETWORKS.resolve("solana", fallback)).toBe(id);
    },
  );

  it("gives the default to the family name only: every other name means one network whatever the default", () => {
    expect(SHIPPED_NETWORKS.resolve("devnet", "solana-mainnet")).toBe("solana-devnet");
    expect(SHIPPED_NETWORKS.resolve("base", "base-sepolia")).toBe("base");
  });

  it.each([
    [""],
    ["testnet"],
    ["solana:testnet"],
    ["eip155:1"],
    ["toString"],
    ["__proto__"],
    ["DEVNET"],
    ["solana-devnet"],
    ["solana-mainnet"],
    ["solana-x"],
  ])("rejects malformed input %j", (name) => {
    expect(SHIPPED_NETWORKS.resolve(name)).toBeNull();
  });
});

describe("NetworkRegistry.ofReceiptNetwork()", () => {
  it("reads a receipt's network as the verifier always has: CAIP-2 ids, Solana's aliases and whole genesis hash", () => {
    expect(SHIPPED_NETWORKS.ofReceiptNetwork(`${DEVNET_CAIP2}wCkoK8Yw2JbsXQH5S3xw`)?.id).toBe("solana-devnet");
    expect(SHIPPED_NETWORKS.ofReceiptNetwork("solana:devnet")?.id).toBe("solana-devnet");
    expect(SHIPPED_NETWORKS.ofReceiptNetwork("solana:mainnet-beta")?.id).toBe("solana-mainnet");
    expect(networks.solanaClusterOf(`${MAINNET_CAIP2}Kuc147dw2N9d`)).toBe("mainnet");
  });

  it("rejects malformed input: a request name, a family name, an EVM id's prefix or extension", () => {
    for (const name of ["devnet", "base", "solana", "eip155:845", "eip155:845321", "eip155:1", ""])
      expect(SHIPPED_NETWORKS.ofReceiptNetwork(name), name).toBeNull();
  });
});

describe("nativeAmountUnits()", () => {
  it("reads a decimal in atomic units, and rejects malformed input", () => {
    expect(nativeAmountUnits("0.5", 9)).toBe(500_000_000n);
    expect(nativeAmountUnits("0.005", 18)).toBe(5_000_000_000_000_000n);
    expect(nativeAmountUnits("2", 0)).toBe(2n);
    for (const bad of ["", "-1", "1e3", "0.1234567891", ".5", "1."]) expect(nativeAmountUnits(bad, 9), bad).toBeNull();
  });
});
