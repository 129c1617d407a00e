// The idempotency key of a payment: SHA-256 of the canonical JSON of the scheme payload (the signed transaction or
// authorization). Two encodings of one payment hash the same; two payments never do.
import type { PaymentPayload } from "@x402/core/types";
import { canonicalJson, sha256Hex } from "../verify";

/** Hex SHA-256 over the canonical JSON of `payload.payload`. */
export function paymentPayloadHash(payload: PaymentPayload): string {
  return sha256Hex(canonicalJson(payload.payload));
}
