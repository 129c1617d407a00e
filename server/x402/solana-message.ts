// The compiled message of a Solana payment's transaction, decoded once from the payload's base64 wire bytes, for the
// checks that read it: the transfer it makes, the fee it costs, and its idempotency key.
import "server-only";
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import type { PaymentPayload } from "@x402/core/types";

type Compiled = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
/** A legacy or v0 message: the forms whose instructions and static accounts can be read. */
export type SolanaMessage = Extract<Compiled, { instructions: unknown }>;

/** The message's bytes and its decoded form; null when the payload carries no decodable Solana transaction. */
export function solanaMessage(payload: PaymentPayload): { bytes: Uint8Array; message: SolanaMessage | null } | null {
  const wire = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof wire !== "string") return null;
  try {
    const bytes = new Uint8Array(getTransactionDecoder().decode(Buffer.from(wire, "base64")).messageBytes);
    let message: SolanaMessage | null = null;
    try {
      const decoded = getCompiledTransactionMessageDecoder().decode(bytes);
      if ("instructions" in decoded) message = decoded as SolanaMessage;
    } catch {
      message = null;
    }
    return { bytes, message };
  } catch {
    return null;
  }
}
