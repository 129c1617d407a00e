// x402 header codecs for both spellings the service speaks: X-Payment / X-Payment-Required / X-Payment-Response (the
// seed's, and x402 v1's X-PAYMENT and X-PAYMENT-RESPONSE) and x402 v2's PAYMENT-SIGNATURE / PAYMENT-REQUIRED /
// PAYMENT-RESPONSE, so stock clients of either version work.
import "server-only";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { NetworkRegistry } from "../verify";
import { fromV1Payload } from "./x402-v1";

/** Longest payment header accepted; a Solana payload is ~1.5 KB, an EVM one smaller. */
export const MAX_PAYMENT_HEADER_BYTES = 16_384;

/** The payment header value, from X-Payment (the seed) or PAYMENT-SIGNATURE (x402 v2); null when absent. */
export function readPaymentHeader(headers: Headers): string | null {
  const value = headers.get("x-payment") ?? headers.get("payment-signature");
  return value === null || value.trim() === "" ? null : value.trim();
}

export type DecodedPayment =
  { ok: true; payload: PaymentPayload } | { ok: false; reason: "too_large" | "malformed" | "unsupported_version" };

/**
 * Decodes a payment header, x402 v2's or v1's (a v1 payment in the service's form, named by its network among
 * `networks`: see x402-v1.ts); never throws.
 */
export function decodePaymentHeader(value: string, networks: NetworkRegistry): DecodedPayment {
  if (value.length > MAX_PAYMENT_HEADER_BYTES) return { ok: false, reason: "too_large" };
  let payload: PaymentPayload;
  try {
    payload = decodePaymentSignatureHeader(value);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof payload !== "object" || payload === null) return { ok: false, reason: "malformed" };
  if (payload.x402Version === 1) {
    const v1 = fromV1Payload(networks, payload as unknown as Record<string, unknown>);
    return v1 ? { ok: true, payload: v1 } : { ok: false, reason: "malformed" };
  }
  if (payload.x402Version !== 2) return { ok: false, reason: "unsupported_version" };
  const accepted = payload.accepted as unknown;
  const inner = payload.payload as unknown;
  if (
    typeof accepted !== "object" ||
    accepted === null ||
    typeof inner !== "object" ||
    inner === null ||
    Array.isArray(inner)
  ) {
    return { ok: false, reason: "malformed" };
  }
  return { ok: true, payload };
}

/**
 * Both challenge headers: PAYMENT-REQUIRED carries the whole base64 PaymentRequired; X-Payment-Required (the seed's
 * header, read by clients that know no x402 extensions) what paying needs: the version, the resource's URL and the
 * requirements, without the chain's current blockhash (a client without one fetches its own). A default reverse proxy
 * takes an answer's whole head in 4 KB (compact-extensions.ts), and the two headers share it.
 */
export function challengeHeaders(paymentRequired: PaymentRequired): Record<string, string> {
  const { x402Version, resource, accepts } = paymentRequired;
  const seed = {
    x402Version,
    resource: { url: resource.url },
    accepts: accepts.map(withoutBlockhash),
  } as PaymentRequired;
  return {
    "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired),
    "X-Payment-Required": encodePaymentRequiredHeader(seed),
    "cache-control": "no-store",
  };
}

/** A requirement without the per-challenge blockhash a Solana one carries in `extra`. */
function withoutBlockhash(requirement: PaymentRequirements): PaymentRequirements {
  if (!requirement.extra || !("recentBlockhash" in requirement.extra)) return requirement;
  const { recentBlockhash: _hash, lastValidBlockHeight: _height, ...extra } = requirement.extra;
  return { ...requirement, extra };
}

/**
 * Both settlement headers: base64 JSON of `{ success, transaction, network, payer }`; PAYMENT-RESPONSE (x402 v2's) with
 * the `extensions` given too (the offer-receipt extension's signed receipt, once the call was served), X-Payment-Response
 * (the seed's and x402 v1's) without them, as the head of an answer shares a default proxy's 4 KB. The same bytes as
 * @x402/core's encodePaymentResponseHeader, through Buffer: its encoder goes byte by byte through btoa, about 40 µs per
 * KB.
 */
export function settlementHeaders(settlement: {
  transaction: string;
  network: string;
  payer: string;
  extensions?: Record<string, unknown> | undefined;
}): Record<string, string> {
  const body: SettleResponse = {
    success: true,
    transaction: settlement.transaction,
    network: settlement.network as SettleResponse["network"],
    payer: settlement.payer,
  };
  const encode = (value: SettleResponse) => Buffer.from(JSON.stringify(value), "utf8").toString("base64");
  const plain = encode(body);
  return {
    "PAYMENT-RESPONSE": settlement.extensions ? encode({ ...body, extensions: settlement.extensions }) : plain,
    "X-Payment-Response": plain,
  };
}
