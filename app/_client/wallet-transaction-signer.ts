// The bridge between a browser wallet (the Solana wallet adapter's `signTransaction`, on web3.js transactions) and the
// signer interface @solana/kit and the x402 SVM client expect, so the stock client builds the payment and the wallet
// only signs it. Browser-safe.
import {
  address,
  getTransactionDecoder,
  getTransactionEncoder,
  type Transaction,
  type TransactionModifyingSigner,
} from "@solana/kit";
import { VersionedTransaction } from "@solana/web3.js";

/** What the wallet adapter's `useWallet().signTransaction` does, narrowed to versioned transactions. */
export type WalletSignTransaction = (transaction: VersionedTransaction) => Promise<VersionedTransaction>;

/** The wallet returned a transaction that its account did not sign: nothing can be paid with it. */
export class WalletDidNotSignError extends Error {
  override name = "WalletDidNotSignError";
}

/**
 * A kit `TransactionModifyingSigner` for the connected wallet. Modifying, not partial: wallets may add instructions
 * (Phantom appends Lighthouse guards) and sign what they return, so the transaction the wallet gives back is the one
 * sent, never our copy with the wallet's signature pasted in.
 */
export function walletTransactionSigner(
  walletAddress: string,
  signTransaction: WalletSignTransaction,
): TransactionModifyingSigner {
  const signer = address(walletAddress);
  return Object.freeze({
    address: signer,
    async modifyAndSignTransactions<T extends Transaction>(transactions: readonly T[]) {
      const signed = [];
      for (const transaction of transactions) {
        const wire = getTransactionEncoder().encode(transaction);
        const returned = await signTransaction(VersionedTransaction.deserialize(new Uint8Array(wire)));
        const decoded = getTransactionDecoder().decode(returned.serialize());
        const signature = decoded.signatures[signer];
        if (!signature || signature.every((b) => b === 0))
          throw new WalletDidNotSignError("the wallet returned the transaction without its signature");
        // x402 reads only the wire bytes after signing; the lifetime (the challenge's blockhash) is carried over for kit.
        signed.push({ ...transaction, ...decoded } as unknown as T);
      }
      return signed as never;
    },
  });
}
