// Where a person can look at a transaction or an address: the public block explorer of its network. Pure, so the
// explorer and credits pages link from the browser. The local chains play these networks' ids, so a link for a local
// transaction leads to a public explorer that cannot know it; the pages say which network the link assumes.
import { BASE_MAINNET_CAIP2, BASE_SEPOLIA_CAIP2, solanaClusterOf } from "./networks";

const SOLANA_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const EVM_TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The explorer URL of `tx` on `network`, or null for a network or transaction id we cannot link. */
export function txExplorerUrl(network: string, tx: string): string | null {
  return explorerUrl(network, "tx", tx, SOLANA_SIGNATURE, EVM_TX_HASH);
}

/** The explorer URL of the account `addr` on `network`, or null for a network or address we cannot link. */
export function addressExplorerUrl(network: string, addr: string): string | null {
  return explorerUrl(network, "address", addr, SOLANA_ADDRESS, EVM_ADDRESS);
}

/** The name of the public explorer `txExplorerUrl` links to on `network`. */
export function explorerName(network: string): string | null {
  if (network === BASE_MAINNET_CAIP2 || network === BASE_SEPOLIA_CAIP2) return network === BASE_SEPOLIA_CAIP2 ? "Basescan (Sepolia)" : "Basescan";
  const cluster = solanaClusterOf(network);
  return cluster ? `Solana Explorer (${cluster})` : null;
}

function explorerUrl(network: string, kind: "tx" | "address", id: string, solana: RegExp, evm: RegExp): string | null {
  if (network === BASE_MAINNET_CAIP2 || network === BASE_SEPOLIA_CAIP2) {
    if (!evm.test(id)) return null;
    return `https://${network === BASE_SEPOLIA_CAIP2 ? "sepolia." : ""}basescan.org/${kind}/${id}`;
  }
  const cluster = solanaClusterOf(network);
  if (!cluster || !solana.test(id)) return null;
  return `https://explorer.solana.com/${kind}/${id}${cluster === "devnet" ? "?cluster=devnet" : ""}`;
}
