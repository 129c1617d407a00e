// The service side of x402: builds payment requirements and challenges with @x402/core's x402ResourceServer, and
// verifies and settles through the in-process facilitator (no HTTP hop, no @x402/next: it buffers streams).
import "server-only";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import type { Facilitator } from "../facilitator/create-facilitator";
import { NETWORKS, type NetworkId } from "../chain/networks";

/**
 * How long a payment authorization stays acceptable. A Solana blockhash lives ~60-90 s; the client builds the
 * transaction right after the 402, so two minutes covers a slow client without keeping stale payloads alive.
 */
export const PAYMENT_MAX_TIMEOUT_SECONDS = 120;

/** The facilitator as @x402/core's FacilitatorClient, called in process. */
class InProcessFacilitatorClient implements FacilitatorClient {
  constructor(private readonly facilitator: Facilitator) {}
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    return this.facilitator.x402.verify(payload, requirements);
  }
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    return this.facilitator.x402.settle(payload, requirements);
  }
  async getSupported() {
    return this.facilitator.x402.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>;
  }
}

export interface PaymentGateway {
  facilitator: Facilitator;
  /** Networks the gateway can take payment on (an RPC is configured). */
  supports(network: NetworkId): boolean;
  /** One `exact` requirement for `amountUnits` of the network's USDC, paid to `payTo`, upfront flow. Cached. */
  requirements(network: NetworkId, amountUnits: bigint, payTo: string): Promise<PaymentRequirements>;
  /** The 402 PaymentRequired document for one requirement. */
  paymentRequired(requirements: PaymentRequirements, resource: { url: string; description: string }, error?: string): Promise<PaymentRequired>;
  /** The requirement among ours that the payload accepted, or null (wrong amount, asset, payee or network). */
  match(requirements: PaymentRequirements, payload: PaymentPayload): PaymentRequirements | null;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
}

/** Builds the gateway over a facilitator. */
export async function createPaymentGateway(facilitator: Facilitator): Promise<PaymentGateway> {
  const client = new InProcessFacilitatorClient(facilitator);
  const server = new x402ResourceServer(client);
  const supported = new Set<NetworkId>();
  for (const id of Object.keys(facilitator.rpcUrls) as NetworkId[]) {
    server.register(NETWORKS[id].caip2 as never, new ExactSvmServerScheme({ rpcUrl: facilitator.rpcUrls[id]! }));
    supported.add(id);
  }
  for (const id of Object.keys(facilitator.evm?.rpcUrls ?? {}) as NetworkId[]) {
    server.register(NETWORKS[id].caip2 as never, new ExactEvmServerScheme());
    supported.add(id);
  }
  await server.initialize();
  const cache = new Map<string, Promise<PaymentRequirements>>();

  return {
    facilitator,
    supports: (network) => supported.has(network),
    requirements(network, amountUnits, payTo) {
      const info = NETWORKS[network];
      const key = `${info.caip2}|${amountUnits}|${payTo}`;
      let cached = cache.get(key);
      if (!cached) {
        cached = server
          .buildPaymentRequirements({
            scheme: "exact",
            network: info.caip2 as never,
            payTo,
            // EVM: the token's EIP-712 domain travels in `extra`, where stock clients read it to sign EIP-3009.
            price: { amount: amountUnits.toString(), asset: info.usdcAsset, ...(info.eip712 ? { extra: { ...info.eip712 } } : {}) },
            maxTimeoutSeconds: PAYMENT_MAX_TIMEOUT_SECONDS,
            // Payment settles before the inference runs: x402's "upfront" flow.
            extra: { paymentFlow: "upfront" },
          })
          .then((list) => {
            const first = list[0];
            if (!first) throw new Error(`no payment requirement could be built for ${info.caip2}`);
            return first;
          });
        cached.catch(() => cache.delete(key));
        cache.set(key, cached);
      }
      return cached;
    },
    paymentRequired(requirements, resource, error) {
      return server.createPaymentRequiredResponse([requirements], { url: resource.url, description: resource.description, mimeType: "application/json" }, error);
    },
    match(requirements, payload) {
      return server.findMatchingRequirements([requirements], payload) ?? null;
    },
    verify: (payload, requirements) => facilitator.x402.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.x402.settle(payload, requirements),
  };
}
