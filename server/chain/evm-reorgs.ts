// Base payments the chain no longer holds: a recorded settlement whose transaction was reorged out of the canonical
// chain. Its receipt is gone (the transaction is back in the mempool, or nowhere), or the receipt names a block that
// is no longer the canonical block at its height (an RPC node behind a reorg). A transaction re-included after the
// reorg has a receipt in a canonical block again, and stands.
import "server-only";
import type { PublicClient } from "viem";

export interface ReorgedPayment {
  transaction: string;
  detail: string;
}

/** Which of `payments` (settled on this EVM network) were reorged away. Throws when the chain cannot be read. */
export async function findReorgedPayments(
  client: PublicClient,
  payments: { id: string; txSignature: string | null; units: bigint }[],
): Promise<ReorgedPayment[]> {
  const found: ReorgedPayment[] = [];
  for (const payment of payments) {
    const hash = payment.txSignature?.toLowerCase();
    if (!hash || !/^0x[0-9a-f]{64}$/.test(hash)) continue;
    const receipt = await client.getTransactionReceipt({ hash: hash as `0x${string}` }).catch((err: unknown) => {
      if ((err as { name?: string }).name === "TransactionReceiptNotFoundError") return null;
      throw err;
    });
    if (!receipt) {
      const pending = await client.getTransaction({ hash: hash as `0x${string}` }).catch(() => null);
      found.push({
        transaction: hash,
        detail: `payment ${payment.id} (${payment.units} units): its transaction has no receipt; ${pending ? "it is back in the mempool, unmined" : "the chain no longer knows it"}`,
      });
      continue;
    }
    const block = await client.getBlock({ blockNumber: receipt.blockNumber }).catch(() => null);
    if (!block || block.hash?.toLowerCase() !== receipt.blockHash.toLowerCase()) {
      found.push({
        transaction: hash,
        detail: `payment ${payment.id} (${payment.units} units): its receipt names block ${receipt.blockNumber} ${receipt.blockHash}, but the canonical block there is ${block?.hash ?? "missing"}`,
      });
    }
  }
  return found;
}
