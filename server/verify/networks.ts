// The verifier's names for the shipped networks, derived from their rows (network-registry.ts): how a receipt's
// `payment.network` maps to a chain, its USDC asset and a default RPC. Kept for the library's callers; new code reads
// the registry.
import { isSvmRow } from "./chain-family-facts";
import { SHIPPED_NETWORKS, type NetworkRow } from "./network-registry";

const row = (id: string): NetworkRow => SHIPPED_NETWORKS.get(id);

export const SOLANA_DEVNET_CAIP2 = row("solana-devnet").caip2;
export const SOLANA_MAINNET_CAIP2 = row("solana-mainnet").caip2;

export type SolanaCluster = "devnet" | "mainnet";

/** The real USDC mints. "USDC" means this mint, not any token called USDC: checks compare the mint. */
export const USDC_MINT_BY_SOLANA_CLUSTER: Record<SolanaCluster, string> = {
  devnet: row("solana-devnet").usdcAsset,
  mainnet: row("solana-mainnet").usdcAsset,
};

export const DEFAULT_SOLANA_RPC_BY_CLUSTER: Record<SolanaCluster, string> = {
  devnet: row("solana-devnet").publicRpcUrl,
  mainnet: row("solana-mainnet").publicRpcUrl,
};

/**
 * Which Solana cluster a network string names. Accepts CAIP-2 ids (the 32-char genesis prefix), the full genesis hash
 * form receipts carry (`solana:<genesis_hash>`), and the runbook aliases `solana:devnet` / `solana:mainnet`.
 */
export function solanaClusterOf(network: string): SolanaCluster | null {
  const found = SHIPPED_NETWORKS.ofReceiptNetwork(network);
  if (!found || !isSvmRow(found)) return null;
  return found.isMainnet ? "mainnet" : "devnet";
}

export const BASE_MAINNET_CAIP2 = row("base").caip2;
export const BASE_SEPOLIA_CAIP2 = row("base-sepolia").caip2;

/** The real USDC contracts on the EVM networks the service takes payment on, by CAIP-2 id. */
export const USDC_CONTRACT_BY_EVM_NETWORK: Record<string, string> = Object.fromEntries(
  SHIPPED_NETWORKS.ofFamily("evm").map((r) => [r.caip2, r.usdcAsset]),
);

export const DEFAULT_EVM_RPC_BY_NETWORK: Record<string, string> = Object.fromEntries(
  SHIPPED_NETWORKS.ofFamily("evm").map((r) => [r.caip2, r.publicRpcUrl]),
);

/** True for the EVM networks the verifier knows (exact CAIP-2 ids). */
export function isKnownEvmNetwork(network: string): boolean {
  return Object.hasOwn(USDC_CONTRACT_BY_EVM_NETWORK, network);
}
