// The RPC endpoints this service publishes per network (the explorer, x402 discovery): the ones it uses, but only
// with the operator's say-so in production.
import "server-only";
import { NETWORKS } from "../chain/networks";
import type { Config } from "../env";

/** CAIP-2 → RPC URL, for the networks with an RPC configured; empty unless publishing is allowed. */
export function advertisedRpcUrls(cfg: Pick<Config, "solanaRpcUrl" | "evmRpcUrl" | "isProduction" | "EXPLORER_ADVERTISE_RPC">): Record<string, string> {
  const { solanaRpcUrl, evmRpcUrl, isProduction, EXPLORER_ADVERTISE_RPC } = cfg;
  const out: Record<string, string> = {};
  // SECURITY: production RPC URLs often embed a provider API key; publishing them takes the operator's say-so.
  if (!(EXPLORER_ADVERTISE_RPC ?? !isProduction)) return out;
  if (solanaRpcUrl.devnet) out[NETWORKS["solana-devnet"].caip2] = solanaRpcUrl.devnet;
  if (solanaRpcUrl.mainnet) out[NETWORKS["solana-mainnet"].caip2] = solanaRpcUrl.mainnet;
  if (evmRpcUrl.baseSepolia) out[NETWORKS["base-sepolia"].caip2] = evmRpcUrl.baseSepolia;
  if (evmRpcUrl.base) out[NETWORKS.base.caip2] = evmRpcUrl.base;
  return out;
}
