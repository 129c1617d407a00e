// Verify failures are split into `payment_expired` (the payment outlived its blockhash or its authorization's
// validBefore: nothing can move, pay the new challenge), `insufficient_balance` (the agent's side) and
// `payment_invalid` (a fault). The facilitator only says "simulation failed", so on that path we read the
// simulation's message, and then the transfer's source balance ourselves. Only failures pay for this lookup; a valid
// payment costs nothing extra.
import "server-only";
import { address, type Rpc, type SolanaRpcApi } from "@solana/kit";
import { solanaMessage } from "../facilitator/solana-message";
import type { PaymentPayload } from "@x402/core/types";

export type VerifyFailureReason = "payment_expired" | "insufficient_balance" | "payment_invalid";

/** A simulation refused for its blockhash (the cluster no longer knows it), or an EIP-3009 authorization past validBefore. */
const EXPIRED = /blockhash ?not ?found|authorization_valid_before/i;

const TOKEN_PROGRAMS = new Set([
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
]);
/** SPL Token instruction tag of TransferChecked. */
const TRANSFER_CHECKED = 12;

/** Classifies a failed verification: insufficient when the paying token account holds less than it transfers. */
export async function classifyVerifyFailure(
  payload: PaymentPayload,
  invalidReason: string | undefined,
  rpc: Rpc<SolanaRpcApi> | undefined,
  invalidMessage?: string,
): Promise<VerifyFailureReason> {
  if (EXPIRED.test(invalidReason ?? "") || EXPIRED.test(invalidMessage ?? "")) return "payment_expired";
  if (invalidReason && /insufficient/i.test(invalidReason)) return "insufficient_balance";
  if (!rpc || !invalidReason || !/simulation/i.test(invalidReason)) return "payment_invalid";
  const transfer = findTransfer(payload);
  if (!transfer) return "payment_invalid";
  try {
    const { value } = await rpc.getTokenAccountBalance(address(transfer.source), { commitment: "confirmed" }).send();
    return BigInt(value.amount) < transfer.amount ? "insufficient_balance" : "payment_invalid";
  } catch {
    // No such token account: the agent holds none of the asset at all.
    return "insufficient_balance";
  }
}

/** The TransferChecked of a Solana payment: its source token account and amount; null for any other payload. */
export function findTransfer(payload: PaymentPayload): { source: string; amount: bigint } | null {
  const message = solanaMessage(payload)?.message;
  if (!message) return null;
  for (const ix of message.instructions) {
    const program = message.staticAccounts[ix.programAddressIndex];
    const data = ix.data;
    if (!program || !TOKEN_PROGRAMS.has(program) || !data || data[0] !== TRANSFER_CHECKED || data.length < 10) continue;
    const sourceIndex = ix.accountIndices?.[0];
    const source = sourceIndex === undefined ? undefined : message.staticAccounts[sourceIndex];
    if (!source) return null;
    const amount = new DataView(data.buffer, data.byteOffset + 1, 8).getBigUint64(0, true);
    return { source, amount };
  }
  return null;
}
