// The RPC endpoints this service publishes per network (the explorer, x402 discovery): the ones it uses, but only
// with the operator's say-so in production.
import "server-only";
import type { Config } from "../env";

/** CAIP-2 → RPC URL, for the networks with an RPC configured; empty unless publishing is allowed. */
export function advertisedRpcUrls(
  cfg: Pick<Config, "networks" | "rpcUrls" | "isProduction" | "EXPLORER_ADVERTISE_RPC">,
): Record<string, string> {
  const { networks, rpcUrls, isProduction, EXPLORER_ADVERTISE_RPC } = cfg;
  const out: Record<string, string> = {};
  // SECURITY: production RPC URLs often embed a provider API key; publishing them takes the operator's say-so.
  if (!(EXPLORER_ADVERTISE_RPC ?? !isProduction)) return out;
  for (const network of networks.rows) {
    const url = rpcUrls[network.id];
    if (url !== undefined) out[network.caip2] = url;
  }
  return out;
}
