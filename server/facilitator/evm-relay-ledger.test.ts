// Whether the node knows a relay's transaction: its own "not found" is the only no; a node that cannot be asked is
// no evidence, and a relay answered "nonce taken" whose lookup failed is taken as ours rather than sent again.
import { describe, expect, it } from "vitest";
import { TransactionNotFoundError, type Hex } from "viem";
import { nodeKnows } from "./evm-relay-ledger";

const HASH = `0x${"ab".repeat(32)}` as Hex;
const node = (answer: () => Promise<unknown>) => ({ getTransaction: answer });

describe("nodeKnows()", () => {
  it("is true for a transaction the node returns", async () => {
    await expect(
      nodeKnows(
        node(async () => ({ hash: HASH })),
        HASH,
      ),
    ).resolves.toBe(true);
  });

  it("is false only when the node says it has no such transaction", async () => {
    await expect(
      nodeKnows(
        node(async () => Promise.reject(new TransactionNotFoundError({ hash: HASH }))),
        HASH,
      ),
    ).resolves.toBe(false);
  });

  it("rejects when the node cannot be asked, so the caller's doubt rule decides", async () => {
    const down = new Error("HTTP request failed: 503");
    await expect(
      nodeKnows(
        node(async () => Promise.reject(down)),
        HASH,
      ),
    ).rejects.toBe(down);
  });
});
