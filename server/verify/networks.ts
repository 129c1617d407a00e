// Networks the verifier knows: how a receipt's `payment.network` maps to a chain, its USDC asset and a default RPC.
// Pure constants; the service's own RPC choice lives in server/chain (config), not here.

export const SOLANA_DEVNET_CAIP2 = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
export const SOLANA_MAINNET_CAIP2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

export type SolanaCluster = "devnet" | "mainnet";

/** The real USDC mints. "USDC" means this mint, not any token called USDC: checks compare the mint. */
export const USDC_MINT_BY_SOLANA_CLUSTER: Record<SolanaCluster, string> = {
  devnet: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
  mainnet: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
};

export const DEFAULT_SOLANA_RPC_BY_CLUSTER: Record<SolanaCluster, string> = {
  devnet: "https://api.devnet.solana.com",
  mainnet: "https://api.mainnet-beta.solana.com",
};

/**
 * Which Solana cluster a network string names. Accepts CAIP-2 ids (the 32-char genesis prefix), the full genesis hash
 * form receipts carry (`solana:<genesis_hash>`), and the runbook aliases `solana:devnet` / `solana:mainnet`.
 */
export function solanaClusterOf(network: string): SolanaCluster | null {
  if (network === "solana:devnet" || network.startsWith(SOLANA_DEVNET_CAIP2)) return "devnet";
  if (network === "solana:mainnet" || network === "solana:mainnet-beta" || network.startsWith(SOLANA_MAINNET_CAIP2)) {
    return "mainnet";
  }
  return null;
}

export const BASE_MAINNET_CAIP2 = "eip155:8453";
export const BASE_SEPOLIA_CAIP2 = "eip155:84532";

/** The real USDC contracts on the EVM networks the service takes payment on. */
export const USDC_CONTRACT_BY_EVM_NETWORK: Record<string, string> = {
  [BASE_MAINNET_CAIP2]: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  [BASE_SEPOLIA_CAIP2]: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
};

export const DEFAULT_EVM_RPC_BY_NETWORK: Record<string, string> = {
  [BASE_MAINNET_CAIP2]: "https://mainnet.base.org",
  [BASE_SEPOLIA_CAIP2]: "https://sepolia.base.org",
};

/** True for the EVM networks the verifier knows (exact CAIP-2 ids). */
export function isKnownEvmNetwork(network: string): boolean {
  return Object.hasOwn(USDC_CONTRACT_BY_EVM_NETWORK, network);
}
