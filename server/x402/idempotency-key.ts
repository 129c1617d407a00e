// The idempotency key of an x402 payment is what the chain itself deduplicates, so no re-encoding of one payment can
// claim it twice:
// - Solana: the transaction's message. Its signatures are deterministic (Ed25519), so one message is one transaction,
//   whatever bytes carry it (base64 padding, JSON spelling, extra fields, a re-sent signature array).
// - EIP-3009: the token contract's `authorizationState(from, nonce)`: one (chain, token, from, nonce) moves money once.
// A payload of neither shape falls back to the canonical JSON of its scheme payload (verification refuses it anyway).
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { canonicalJson, sha256Hex } from "../verify";
import { solanaMessage } from "../facilitator/solana-message";

/** The payment's idempotency key: `svm:<sha256 of the message>`, `evm:<network>:<token>:<from>:<nonce>`, or `payload:<sha256>`. */
export function paymentIdempotencyKey(payload: PaymentPayload): string {
  const inner = payload.payload as { authorization?: { from?: unknown; nonce?: unknown } };
  const message = solanaMessage(payload);
  if (message) return `svm:${bytesToHex(sha256(message.bytes))}`;
  const auth = inner.authorization;
  if (auth && typeof auth.from === "string" && typeof auth.nonce === "string") {
    const accepted = payload.accepted as { network?: unknown; asset?: unknown };
    return `evm:${String(accepted.network)}:${String(accepted.asset).toLowerCase()}:${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;
  }
  return `payload:${sha256Hex(canonicalJson(payload.payload))}`;
}
