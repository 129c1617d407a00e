// A wallet's USDC on a Solana network, read in the browser from the chain: its associated token account, whether it
// exists, and its balance in atomic units. Browser-safe (@solana/web3.js and @solana/spl-token).
import {
  getAccount,
  getAssociatedTokenAddressSync,
  TokenAccountNotFoundError,
  TokenInvalidAccountOwnerError,
} from "@solana/spl-token";
import { Connection, PublicKey } from "@solana/web3.js";

export type UsdcAccount =
  { exists: true; tokenAccount: string; units: bigint } | { exists: false; tokenAccount: string; units: 0n };

/** Reads `owner`'s USDC (`mint`) token account through `rpcUrl`; an account that is absent reads as `exists: false`. */
export async function readUsdcAccount(rpcUrl: string, owner: string, mint: string): Promise<UsdcAccount> {
  const tokenAccount = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner));
  const connection = new Connection(rpcUrl, "confirmed");
  try {
    const account = await getAccount(connection, tokenAccount, "confirmed");
    return { exists: true, tokenAccount: tokenAccount.toBase58(), units: account.amount };
  } catch (err) {
    if (err instanceof TokenAccountNotFoundError || err instanceof TokenInvalidAccountOwnerError)
      return { exists: false, tokenAccount: tokenAccount.toBase58(), units: 0n };
    throw err;
  }
}
