// Base payments are EIP-3009 authorizations only: that is what the challenge advertises, and what crash recovery can
// find on chain (`authorizationState` and the AuthorizationUsed log). @x402/evm's exact scheme would also take a
// Permit2 payload, which moves money through another contract that recovery cannot see; it is refused here.
import "server-only";
import type { PaymentPayload } from "@x402/core/types";

/** The closed set of reasons this check refuses with. */
export type EvmPayloadRefusal = "unsupported_payload";

/** The fields of an EIP-3009 exact payload (`ExactEIP3009Payload` in @x402/evm); any other field is refused. */
const EIP3009_FIELDS = new Set(["signature", "authorization"]);

/** Refuses any EVM payment payload that is not a plain EIP-3009 authorization (Permit2, or anything unknown). */
export function evmPayloadRefusal(payload: PaymentPayload): EvmPayloadRefusal | null {
  const inner = payload.payload as Record<string, unknown> | null;
  if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return "unsupported_payload";
  const authorization = inner.authorization;
  if (typeof authorization !== "object" || authorization === null || Array.isArray(authorization))
    return "unsupported_payload";
  if (Object.keys(inner).some((field) => !EIP3009_FIELDS.has(field))) return "unsupported_payload";
  return null;
}
