// A receipt's `payment.network` by name, from the networks the page was given by the server (server/chain labels).
// Solana receipts may carry the full genesis hash or the `solana:devnet` alias: they match by cluster; EVM ids match
// exactly ("eip155:84532" starts with "eip155:8453").
import { solanaClusterOf } from "@/server/verify";

export interface NetworkName {
  caip2: string;
  label: string;
}

/** The network's name, or null for one this deployment does not know. */
export function networkLabel(networks: readonly NetworkName[], network: string): string | null {
  const cluster = solanaClusterOf(network);
  const found = networks.find((n) => n.caip2 === network || (cluster !== null && solanaClusterOf(n.caip2) === cluster));
  return found?.label ?? null;
}
