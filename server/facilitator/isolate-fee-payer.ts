// The fee payer signs every payment transaction, so any instruction that lists it among its accounts may use that
// signature: Lighthouse's MemoryWrite, which @x402/svm's exact verify allows, takes a writable signer `payer` that
// funds a new account, so naming the fee payer there would spend its SOL on rent. Only the transfer is checked by the
// stock scheme (its authority); this refuses the fee payer in any instruction at all.
import "server-only";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { decodeSolanaWire } from "./solana-message";

/** The closed set of reasons this check refuses with; stable, they reach logs and clients as the verify detail. */
export type FeePayerRefusal = "fee_payer_in_instruction" | "transaction_undecodable";

/**
 * Refuses a Solana payment whose transaction lists one of the facilitator's addresses (or the requirement's fee
 * payer) in any instruction's accounts, the transfer included. Needs no RPC.
 */
export function feePayerRefusal(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  signers: readonly string[],
): FeePayerRefusal | null {
  const ours = new Set(signers);
  if (typeof requirements.extra?.feePayer === "string") ours.add(requirements.extra.feePayer);
  const wire = (payload.payload as { transaction?: unknown } | null)?.transaction;
  if (typeof wire !== "string") return "transaction_undecodable";
  // SECURITY: fail closed; what cannot be read here is not handed on to be simulated and co-signed. Legacy and v0
  // messages list instructions with account indices; a newer layout is not read here, so refused.
  const message = decodeSolanaWire(wire)?.message;
  if (!message) return "transaction_undecodable";
  const accounts = message.staticAccounts;
  const instructions = message.instructions;
  for (const ix of instructions) {
    // Indices past the static keys name accounts loaded from lookup tables. Those can never be signers, and the
    // runtime refuses a transaction that loads one address twice, so the fee payer (always static) cannot hide there.
    if (ours.has(accounts[ix.programAddressIndex] ?? "")) return "fee_payer_in_instruction";
    for (const index of ix.accountIndices ?? []) {
      if (ours.has(accounts[index] ?? "")) return "fee_payer_in_instruction";
    }
  }
  return null;
}
