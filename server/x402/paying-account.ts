// The account a payment pays from, the unit of "one settlement in flight per payer": a Solana payment's source token
// account, or an EIP-3009 authorization's `from`, each on its network.
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import { findTransfer } from "./classify-verify-failure";

/** `svm:<network>:<token account>` or `evm:<network>:<from>`; null for a payload of neither shape. */
export function payingAccount(network: string, payload: PaymentPayload): string | null {
  const transfer = findTransfer(payload);
  if (transfer) return `svm:${network}:${transfer.source}`;
  const from = (payload.payload as { authorization?: { from?: unknown } }).authorization?.from;
  return typeof from === "string" ? `evm:${network}:${from.toLowerCase()}` : null;
}
