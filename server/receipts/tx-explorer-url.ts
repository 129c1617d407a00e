// Where a person can look at a receipt's transaction: the public block explorer of its network. The local chains
// play these networks' ids, so a link for a local transaction leads to a public explorer that cannot know it; the
// permalink page says which network the link assumes.
import "server-only";
import { BASE_MAINNET_CAIP2, BASE_SEPOLIA_CAIP2, solanaClusterOf } from "../verify";

/** The explorer URL of `tx` on `network`, or null for a network or transaction id we cannot link. */
export function txExplorerUrl(network: string, tx: string): string | null {
  if (network === BASE_MAINNET_CAIP2 || network === BASE_SEPOLIA_CAIP2) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(tx)) return null;
    return `https://${network === BASE_SEPOLIA_CAIP2 ? "sepolia." : ""}basescan.org/tx/${tx}`;
  }
  const cluster = solanaClusterOf(network);
  if (!cluster || !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(tx)) return null;
  return `https://explorer.solana.com/tx/${tx}${cluster === "devnet" ? "?cluster=devnet" : ""}`;
}
