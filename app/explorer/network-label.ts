// A receipt's `payment.network` by name, from the networks the page was given by the server. The network is read as
// the verifier reads it (server/verify/network-registry.ts): a CAIP-2 id exactly, a Solana one also by its
// `solana:devnet` alias or its whole genesis hash; a network the registry does not hold matches its CAIP-2 id only.
import { SHIPPED_NETWORKS } from "@/server/verify";

export interface NetworkName {
  caip2: string;
  label: string;
}

/** The network's name, or null for one this deployment does not know. */
export function networkLabel(networks: readonly NetworkName[], network: string): string | null {
  const caip2 = SHIPPED_NETWORKS.ofReceiptNetwork(network)?.caip2 ?? network;
  return networks.find((n) => n.caip2 === caip2)?.label ?? null;
}
