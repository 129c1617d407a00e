// Every verify fails while the deposit address has no USDC token account (STACK.md), so the facilitator creates it
// (idempotently, paying the rent itself) before it accepts the first payment on a network.
import "server-only";
import { address, type KeyPairSigner, type Rpc, type SolanaRpcApi } from "@solana/kit";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { logEvent, type Logger } from "../log";
import type { Clock } from "../clock";
import { sendAndConfirm } from "./send-transaction";

/** Returns the deposit owner's USDC associated token account, creating it when missing. */
export async function ensureDepositTokenAccount(
  rpc: Rpc<SolanaRpcApi>,
  payer: KeyPairSigner,
  owner: string,
  mint: string,
  network: string,
  deps: { clock: Clock; log: Logger },
): Promise<string> {
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const { value } = await rpc.getAccountInfo(ata, { encoding: "base64", commitment: "confirmed" }).send();
  if (value) return ata;
  const instruction = await getCreateAssociatedTokenIdempotentInstructionAsync({
    payer,
    owner: address(owner),
    mint: address(mint),
  });
  const signature = await sendAndConfirm(rpc, payer, [instruction], deps.clock);
  logEvent(deps.log, "facilitator.deposit_account_created", { network, owner, ata, signature });
  return ata;
}
