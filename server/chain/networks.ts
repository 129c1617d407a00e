// The networks the service takes payment on: their CAIP-2 ids, USDC assets, and the names callers
// may use for them. Which RPC serves each one comes from config (server/env.ts), never from here.
import "server-only";
import {
  BASE_MAINNET_CAIP2,
  BASE_SEPOLIA_CAIP2,
  SOLANA_DEVNET_CAIP2,
  SOLANA_MAINNET_CAIP2,
  USDC_CONTRACT_BY_EVM_NETWORK,
  USDC_MINT_BY_SOLANA_CLUSTER,
} from "../verify";

export type NetworkId = "solana-devnet" | "solana-mainnet" | "base" | "base-sepolia";

export interface NetworkInfo {
  id: NetworkId;
  /** CAIP-2 id, as x402 v2 and the receipts carry it. */
  caip2: string;
  family: "svm" | "evm";
  /** Mainnets are refused unless enabled (the kill switch), and only allowlisted agents may pay on them. */
  isMainnet: boolean;
  /** The USDC asset: SPL mint or ERC-20 contract. */
  usdcAsset: string;
  /** EVM only: the USDC contract's EIP-712 domain, which the agent signs its EIP-3009 authorization under. */
  eip712?: { name: string; version: string };
  label: string;
}

export const NETWORKS: Record<NetworkId, NetworkInfo> = {
  "solana-devnet": {
    id: "solana-devnet",
    caip2: SOLANA_DEVNET_CAIP2,
    family: "svm",
    isMainnet: false,
    usdcAsset: USDC_MINT_BY_SOLANA_CLUSTER.devnet,
    label: "Solana devnet",
  },
  "solana-mainnet": {
    id: "solana-mainnet",
    caip2: SOLANA_MAINNET_CAIP2,
    family: "svm",
    isMainnet: true,
    usdcAsset: USDC_MINT_BY_SOLANA_CLUSTER.mainnet,
    label: "Solana mainnet",
  },
  base: {
    id: "base",
    caip2: BASE_MAINNET_CAIP2,
    family: "evm",
    isMainnet: true,
    usdcAsset: USDC_CONTRACT_BY_EVM_NETWORK[BASE_MAINNET_CAIP2]!,
    eip712: { name: "USD Coin", version: "2" },
    label: "Base",
  },
  "base-sepolia": {
    id: "base-sepolia",
    caip2: BASE_SEPOLIA_CAIP2,
    family: "evm",
    isMainnet: false,
    usdcAsset: USDC_CONTRACT_BY_EVM_NETWORK[BASE_SEPOLIA_CAIP2]!,
    eip712: { name: "USDC", version: "2" },
    label: "Base Sepolia",
  },
};

const ALIASES: Record<string, NetworkId> = {
  devnet: "solana-devnet",
  "solana:devnet": "solana-devnet",
  [SOLANA_DEVNET_CAIP2]: "solana-devnet",
  mainnet: "solana-mainnet",
  "solana:mainnet": "solana-mainnet",
  "solana:mainnet-beta": "solana-mainnet",
  [SOLANA_MAINNET_CAIP2]: "solana-mainnet",
  base: "base",
  [BASE_MAINNET_CAIP2]: "base",
  "base-sepolia": "base-sepolia",
  [BASE_SEPOLIA_CAIP2]: "base-sepolia",
};

/**
 * Resolves a network name from a request body or a setting: `mainnet`, `devnet`, `base`, `base-sepolia`, the CAIP-2
 * ids, the `solana:devnet`/`solana:mainnet` runbook names, and `solana` (the default network if it is a Solana one,
 * else devnet). Null for anything else.
 */
export function resolveNetwork(name: string, defaultNetwork?: NetworkId): NetworkId | null {
  const key = name.trim();
  if (key === "solana") {
    return defaultNetwork && NETWORKS[defaultNetwork].family === "svm" ? defaultNetwork : "solana-devnet";
  }
  return Object.hasOwn(ALIASES, key) ? ALIASES[key]! : null;
}

/** The network whose CAIP-2 id is `caip2`, or null. */
export function networkByCaip2(caip2: string): NetworkInfo | null {
  return Object.values(NETWORKS).find((n) => n.caip2 === caip2) ?? null;
}
