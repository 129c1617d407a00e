// The identities a local chain can play: each forges the real network's genesis hash and USDC mint address so stock
// x402 clients and their default spend controls work unchanged. Local chains are always SIMULATED.
import "server-only";
import { SOLANA_DEVNET_CAIP2, SOLANA_MAINNET_CAIP2, USDC_MINT_BY_SOLANA_CLUSTER } from "../../server/verify";

export type LocalnetProfile = "devnet" | "mainnet";

export interface ProfileInfo {
  genesisHash: string;
  caip2: string;
  usdcMint: string;
}

export const PROFILES: Record<LocalnetProfile, ProfileInfo> = {
  devnet: {
    genesisHash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1aFoKMcMZ9YTs",
    caip2: SOLANA_DEVNET_CAIP2,
    usdcMint: USDC_MINT_BY_SOLANA_CLUSTER.devnet,
  },
  mainnet: {
    genesisHash: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    caip2: SOLANA_MAINNET_CAIP2,
    usdcMint: USDC_MINT_BY_SOLANA_CLUSTER.mainnet,
  },
};
