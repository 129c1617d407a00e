import { describe, expect, it } from "vitest";
import { txExplorerUrl } from "./tx-explorer-url";

const SOLANA_SIG = "5gMv".padEnd(88, "A");
const EVM_HASH = `0x${"ab".repeat(32)}`;

describe("txExplorerUrl()", () => {
  it.each([
    ["solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", SOLANA_SIG, `https://explorer.solana.com/tx/${SOLANA_SIG}?cluster=devnet`],
    ["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", SOLANA_SIG, `https://explorer.solana.com/tx/${SOLANA_SIG}`],
    ["eip155:84532", EVM_HASH, `https://sepolia.basescan.org/tx/${EVM_HASH}`],
    ["eip155:8453", EVM_HASH, `https://basescan.org/tx/${EVM_HASH}`],
  ])("links %s transactions to their explorer", (network, tx, url) => {
    expect(txExplorerUrl(network, tx)).toBe(url);
  });

  it.each([
    ["an unknown network", "eip155:1", EVM_HASH],
    ["a Solana signature on Base", "eip155:8453", SOLANA_SIG],
    ["an EVM hash on Solana", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", EVM_HASH],
    ["markup in the id", "eip155:8453", `${EVM_HASH}"><script>`],
  ])("rejects malformed input: %s", (_label, network, tx) => {
    expect(txExplorerUrl(network, tx)).toBeNull();
  });
});
