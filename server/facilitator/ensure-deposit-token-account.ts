// Every verify fails while the deposit address has no USDC token account (STACK.md), so the facilitator creates it
// (idempotently, paying the rent itself) before it accepts the first payment on a network.
import "server-only";
import { address, type KeyPairSigner, type Rpc, type SolanaRpcApi } from "@solana/kit";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstructionAsync, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { logEvent } from "../log";
import { sendAndConfirm } from "./send-transaction";

/** Returns the deposit owner's USDC associated token account, creating it when missing. */
export async function ensureDepositTokenAccount(
  rpc: Rpc<SolanaRpcApi>,
  payer: KeyPairSigner,
  owner: string,
  mint: string,
  network: string,
): Promise<string> {
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value } = await rpc.getAccountInfo(ata, { encoding: "base64", commitment: "confirmed" }).send();
  if (value) return ata;
  const instruction = await getCreateAssociatedTokenIdempotentInstructionAsync({
    payer,
    owner: address(owner),
    mint: address(mint),
  });
  const signature = await sendAndConfirm(rpc, payer, [instruction]);
  logEvent("facilitator.deposit_account_created", { network, owner, ata, signature });
  return ata;
}
