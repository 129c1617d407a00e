// Where a person can look at a transaction or an address: the public block explorer of its network, from the
// network's row. Pure, so the explorer and credits pages link from the browser. The local chains play these networks'
// ids, so a link for a local transaction leads to a public explorer that cannot know it; the pages say which network
// the link assumes.
import { SHIPPED_NETWORKS, type NetworkFamily, type NetworkRegistry } from "./network-registry";

/** What a transaction id and an account look like in each family: anything else is never put into a link. */
const ID_FORMS: Record<NetworkFamily, { tx: RegExp; address: RegExp }> = {
  svm: { tx: /^[1-9A-HJ-NP-Za-km-z]{64,88}$/, address: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/ },
  evm: { tx: /^0x[0-9a-fA-F]{64}$/, address: /^0x[0-9a-fA-F]{40}$/ },
};

/** The explorer URL of `tx` on `network` (a receipt's `payment.network`), or null for a network or transaction id we cannot link. */
export function txExplorerUrl(
  network: string,
  tx: string,
  networks: NetworkRegistry = SHIPPED_NETWORKS,
): string | null {
  const row = networks.ofReceiptNetwork(network);
  if (!row || !ID_FORMS[row.family].tx.test(tx)) return null;
  return row.explorer.txUrl.replace("{tx}", tx);
}

/** The explorer URL of the account `addr` on `network`, or null for a network or address we cannot link. */
export function addressExplorerUrl(
  network: string,
  addr: string,
  networks: NetworkRegistry = SHIPPED_NETWORKS,
): string | null {
  const row = networks.ofReceiptNetwork(network);
  if (!row || !ID_FORMS[row.family].address.test(addr)) return null;
  return row.explorer.addressUrl.replace("{address}", addr);
}

/** The name of the public explorer `txExplorerUrl` links to on `network`. */
export function explorerName(network: string, networks: NetworkRegistry = SHIPPED_NETWORKS): string | null {
  return networks.ofReceiptNetwork(network)?.explorer.name ?? null;
}
