// What the fee payer pays for one Solana settlement: the base fee per signature plus the priority fee its compute
// budget asks for (limit × price, price in micro-lamports per unit). The message says it all, so no RPC is needed.
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import { solanaMessage } from "./solana-message";

/** Lamports per signature, as on mainnet. */
const LAMPORTS_PER_SIGNATURE = 5_000n;
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
/** ComputeBudget instruction tags. */
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

/**
 * The compute budget a Solana payment's transaction asks for: every unit limit and unit price (micro-lamports) its
 * ComputeBudget instructions set, in order, and its signature count; null when it is not a Solana transaction.
 */
export function computeBudgetOf(
  payload: PaymentPayload,
): { limits: bigint[]; prices: bigint[]; signatures: number } | null {
  const message = solanaMessage(payload)?.message;
  if (!message) return null;
  const limits: bigint[] = [];
  const prices: bigint[] = [];
  for (const ix of message.instructions) {
    if (message.staticAccounts[ix.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM || !ix.data) continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === SET_COMPUTE_UNIT_LIMIT && ix.data.length >= 5) limits.push(BigInt(view.getUint32(1, true)));
    if (ix.data[0] === SET_COMPUTE_UNIT_PRICE && ix.data.length >= 9) prices.push(view.getBigUint64(1, true));
  }
  return { limits, prices, signatures: message.header.numSignerAccounts };
}

/** The fee in lamports of the payload's transaction, or null when it is not a Solana transaction. */
export function solanaFeeLamports(payload: PaymentPayload): bigint | null {
  const budget = computeBudgetOf(payload);
  if (!budget) return null;
  const limit = budget.limits.at(-1) ?? 200_000n;
  const price = budget.prices.at(-1) ?? 0n;
  return BigInt(budget.signatures) * LAMPORTS_PER_SIGNATURE + (limit * price + 999_999n) / 1_000_000n;
}
