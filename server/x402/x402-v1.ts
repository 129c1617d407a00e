// x402 v1 beside v2. A v1 client reads its challenge from the 402's body (`x402Version: 1`, `accepts` in v1's form) and
// pays in X-PAYMENT with a payload that names its network by v1's name and carries no `accepted`. Inside the service a
// v1 payment is the same payment as its v2 twin (same transaction, same idempotency key, same binding); only the
// facilitator's verify and settle see it in v1's form, where @x402/svm's and @x402/evm's stock v1 schemes take it.
import "server-only";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { PaymentPayloadV1, PaymentRequirementsV1 } from "@x402/core/types/v1";
import type { NetworkRegistry } from "../verify";

/**
 * The v1 form of one of our requirements: `maxAmountRequired`, the network's v1 name (its row's, as v1 clients and
 * @x402/svm's and @x402/evm's v1 schemes spell it), and the resource inline, with its v1 discovery metadata
 * (`outputSchema`) when it is a paid route.
 */
export function toV1Requirements(
  networks: NetworkRegistry,
  requirements: PaymentRequirements,
  resource: { url: string; description: string; mimeType?: string; outputSchema?: object },
): PaymentRequirementsV1 {
  const network = networks.byCaip2(requirements.network);
  if (!network) throw new Error(`no x402 v1 name for ${requirements.network}`);
  return {
    scheme: requirements.scheme,
    network: network.x402V1Name as PaymentRequirementsV1["network"],
    maxAmountRequired: requirements.amount,
    resource: resource.url,
    description: resource.description,
    mimeType: resource.mimeType ?? "application/json",
    ...(resource.outputSchema ? { outputSchema: resource.outputSchema } : {}),
    payTo: requirements.payTo,
    maxTimeoutSeconds: requirements.maxTimeoutSeconds,
    asset: requirements.asset,
    extra: requirements.extra ?? {},
  } as PaymentRequirementsV1;
}

/**
 * A decoded v1 payment in the service's form: its `accepted` names the scheme, the CAIP-2 network and that network's
 * USDC, which is all a v1 payload says of its requirement (the amount and payee are in its transaction or
 * authorization, where the stock v1 scheme checks them). Null when the payload is not v1's shape or names a network
 * the service does not take.
 */
export function fromV1Payload(networks: NetworkRegistry, raw: Record<string, unknown>): PaymentPayload | null {
  const info = networks.byV1Name(raw.network);
  if (!info || typeof raw.scheme !== "string") return null;
  const inner = raw.payload;
  if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return null;
  return {
    x402Version: 1,
    accepted: { scheme: raw.scheme, network: info.caip2, asset: info.usdcAsset } as PaymentRequirements,
    payload: inner as Record<string, unknown>,
  };
}

/** True for a payment that arrived as x402 v1. */
export function isV1Payment(payload: PaymentPayload): boolean {
  return payload.x402Version === 1;
}

/** The v1 payload and requirements the stock v1 scheme verifies and settles, for a v1 payment matched to `requirements`. */
export function toV1Call(
  networks: NetworkRegistry,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): { payload: PaymentPayload; requirements: PaymentRequirements } {
  const v1Requirements = toV1Requirements(networks, requirements, { url: "", description: "" });
  const v1Payload: PaymentPayloadV1 = {
    x402Version: 1,
    scheme: requirements.scheme,
    network: v1Requirements.network,
    payload: payload.payload,
  };
  // @x402/core's facilitator takes both versions through one signature, typed as v2's.
  return {
    payload: v1Payload as unknown as PaymentPayload,
    requirements: v1Requirements as unknown as PaymentRequirements,
  };
}
