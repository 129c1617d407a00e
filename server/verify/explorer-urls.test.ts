import { describe, expect, it } from "vitest";
import { addressExplorerUrl, explorerName, txExplorerUrl } from "./explorer-urls";

const SOLANA_SIG = "5gMv".padEnd(88, "A");
const EVM_HASH = `0x${"ab".repeat(32)}`;

describe("txExplorerUrl()", () => {
  it.each([
    [
      "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      SOLANA_SIG,
      `https://explorer.solana.com/tx/${SOLANA_SIG}?cluster=devnet`,
    ],
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

describe("addressExplorerUrl()", () => {
  it("links a Solana devnet address and a Base address", () => {
    expect(
      addressExplorerUrl("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"),
    ).toBe("https://explorer.solana.com/address/4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU?cluster=devnet");
    expect(addressExplorerUrl("eip155:8453", `0x${"cd".repeat(20)}`)).toBe(
      `https://basescan.org/address/0x${"cd".repeat(20)}`,
    );
  });

  it("rejects malformed input: a transaction hash as a Base address, markup, an unknown network", () => {
    expect(addressExplorerUrl("eip155:8453", EVM_HASH)).toBeNull();
    expect(addressExplorerUrl("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "abc<script>")).toBeNull();
    expect(addressExplorerUrl("eip155:1", `0x${"cd".repeat(20)}`)).toBeNull();
  });
});

describe("explorerName()", () => {
  it("names the explorer per network, and null for one it does not know", () => {
    expect(explorerName("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")).toBe("Solana Explorer (devnet)");
    expect(explorerName("eip155:84532")).toBe("Basescan (Sepolia)");
    expect(explorerName("eip155:1")).toBeNull();
  });
});
