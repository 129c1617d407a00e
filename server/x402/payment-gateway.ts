// The service side of x402: builds payment requirements and challenges with @x402/core's x402ResourceServer, and
// verifies and settles through the in-process facilitator (no HTTP hop, no @x402/next: it buffers streams). Each
// challenge declares the x402 extensions (@x402/extensions): bazaar discovery metadata, signed offers, payment ids.
import "server-only";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import { BAZAAR, bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { OFFER_RECEIPT } from "@x402/extensions/offer-receipt";
import { PAYMENT_IDENTIFIER, paymentIdentifierResourceServerExtension } from "@x402/extensions/payment-identifier";
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { NetworkId } from "../verify";
import { bazaarDeclaration } from "./bazaar-metadata";
import { compactExtensions } from "./compact-extensions";
import { offerReceiptDeclaration, type OfferReceipts } from "./offer-receipt";
import { paidRoute, paidRouteAt, paidRouteUrl, type PaidRoute } from "./paid-routes";
import { PAYMENT_IDENTIFIER_DECLARATION } from "./payment-id";
import { isV1Payment, toV1Call } from "./x402-v1";

/**
 * How long a payment authorization stays acceptable. A Solana blockhash lives ~60-90 s; the client builds the
 * transaction right after the 402, so two minutes covers a slow client without keeping stale payloads alive.
 */
const PAYMENT_MAX_TIMEOUT_SECONDS = 120;

/**
 * How long a signed offer is good for. Offers are signed once and handed out while half their validity remains, so
 * twice the payment timeout keeps every offer a client receives good for the whole time its payment may take.
 */
const OFFER_VALIDITY_SECONDS = 2 * PAYMENT_MAX_TIMEOUT_SECONDS;

/**
 * How the discovery catalogues name the service (bazaar's service metadata on `resource`). Its tags (SERVICE_TAGS) are
 * in /.well-known/x402, not in each 402, whose head a default proxy bounds (compact-extensions.ts).
 */
const SERVICE_METADATA = { serviceName: "Signet" };

/**
 * Fields @x402/svm's server scheme adds to `extra` from the chain at build time. They go stale within a minute (a
 * cluster drops a blockhash after ~150 slots), so the cached requirement never holds them; each 402 gets its own.
 */
const DYNAMIC_EXTRA_FIELDS = ["recentBlockhash", "lastValidBlockHeight"] as const;

/**
 * How long a 402 waits for the chain's current blockhash. Past it the challenge goes out without one, and the stock
 * client fetches its own from its RPC (@x402/svm's client falls back to getLatestBlockhash).
 */
const CHALLENGE_BLOCKHASH_TIMEOUT_MS = 2_000;

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
  /** The signed offers and settlement receipts (the offer-receipt extension) of this gateway's paid resources. */
  offerReceipts: OfferReceipts;
  /** Networks the gateway can take payment on (an RPC is configured). */
  supports(network: NetworkId): boolean;
  /**
   * One `exact` requirement for `amountUnits` of the network's USDC, paid to `payTo`, upfront flow. Cached, without
   * any blockhash: paymentRequired() adds the current one to each challenge.
   */
  requirements(network: NetworkId, amountUnits: bigint, payTo: string): Promise<PaymentRequirements>;
  /**
   * The 402 PaymentRequired document for one requirement; a Solana one carries the chain's current blockhash. For a
   * paid resource (by the URL's path) it names the resource by its public URL and declares its x402 extensions, with
   * signed offers.
   */
  paymentRequired(
    requirements: PaymentRequirements,
    resource: { url: string; description: string },
    error?: string,
  ): Promise<PaymentRequired>;
  /** The extensions a paid resource's 402 declares (bazaar, offer-receipt, payment-identifier), offers aside. */
  declaredExtensions(resource: PaidRoute): Readonly<Record<string, unknown>>;
  /** The requirement among ours that the payload accepted, or null (wrong amount, asset, payee or network). */
  match(requirements: PaymentRequirements, payload: PaymentPayload): PaymentRequirements | null;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
}

/** The EIP-712 primary type of the message an EIP-3009 payment signs. */
const EIP3009_PRIMARY_TYPE = "TransferWithAuthorization";

/** Builds the gateway over a facilitator; `baseUrl` is the service's public origin, which the paid resources' URLs name. */
export async function createPaymentGateway(
  facilitator: Facilitator,
  offerReceipts: OfferReceipts,
  baseUrl: string,
): Promise<PaymentGateway> {
  const client = new InProcessFacilitatorClient(facilitator);
  const server = new x402ResourceServer(client);
  const { networks } = facilitator;
  const supported = new Set<NetworkId>();
  for (const id of Object.keys(facilitator.rpcUrls)) {
    // No rpcUrl: the scheme would read a blockhash into the requirement we cache; paymentRequired() adds a current one.
    server.register(networks.get(id).caip2 as never, new ExactSvmServerScheme());
    supported.add(id);
  }
  for (const id of Object.keys(facilitator.evm?.rpcUrls ?? {})) {
    server.register(networks.get(id).caip2 as never, new ExactEvmServerScheme());
    supported.add(id);
  }
  server.registerExtension(bazaarResourceServerExtension);
  server.registerExtension(offerReceipts.extension);
  server.registerExtension(paymentIdentifierResourceServerExtension);
  await server.initialize();
  // Per resource, once: the package's own enrichment adds the HTTP method to the bazaar declaration.
  const declared = new Map<PaidRoute, Readonly<Record<string, unknown>>>();
  const declaredExtensions = (resource: PaidRoute) => {
    let extensions = declared.get(resource);
    if (!extensions) {
      const { path, method } = paidRoute(resource);
      const http = { method, routePattern: path, adapter: { getPath: () => path } };
      extensions = server.enrichExtensions(
        {
          [BAZAAR.key]: bazaarDeclaration(resource),
          [OFFER_RECEIPT]: offerReceiptDeclaration(OFFER_VALIDITY_SECONDS),
          [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION,
        },
        http,
      );
      declared.set(resource, extensions);
    }
    return extensions;
  };
  const cache = new Map<string, Promise<PaymentRequirements>>();
  const svmNetworkByCaip2 = new Map<string, NetworkId>(
    Object.keys(facilitator.rpcs).map((id) => [networks.get(id).caip2, id]),
  );
  // Concurrent 402s on one network share one RPC call; nothing is kept once it answers.
  const blockhashInFlight = new Map<
    NetworkId,
    Promise<{ recentBlockhash: string; lastValidBlockHeight: string } | null>
  >();

  /** The network's current blockhash, or null when the RPC does not answer in time (the client then asks its own). */
  function currentBlockhash(network: NetworkId) {
    let pending = blockhashInFlight.get(network);
    if (!pending) {
      const rpc = facilitator.rpcs[network]!;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), CHALLENGE_BLOCKHASH_TIMEOUT_MS);
        timer.unref();
      });
      const asked = rpc
        .getLatestBlockhash()
        .send()
        .then(({ value }) => ({
          recentBlockhash: value.blockhash as string,
          lastValidBlockHeight: value.lastValidBlockHeight.toString(),
        }))
        .catch(() => null);
      pending = Promise.race([asked, timeout]).finally(() => {
        clearTimeout(timer);
        blockhashInFlight.delete(network);
      });
      blockhashInFlight.set(network, pending);
    }
    return pending;
  }

  return {
    facilitator,
    offerReceipts,
    supports: (network) => supported.has(network),
    requirements(network, amountUnits, payTo) {
      const info = networks.get(network);
      const key = `${info.caip2}|${amountUnits}|${payTo}`;
      let cached = cache.get(key);
      if (!cached) {
        cached = server
          .buildPaymentRequirements({
            scheme: "exact",
            network: info.caip2 as never,
            payTo,
            // EVM: the token's EIP-712 domain travels in `extra`, where stock clients read it to sign EIP-3009, with
            // the typed message's primary type, which some clients (thirdweb's) otherwise look up over the network.
            price: {
              amount: amountUnits.toString(),
              asset: info.usdcAsset,
              ...(info.eip712 ? { extra: { ...info.eip712, primaryType: EIP3009_PRIMARY_TYPE } } : {}),
            },
            maxTimeoutSeconds: PAYMENT_MAX_TIMEOUT_SECONDS,
            // Payment settles before the inference runs: x402's "upfront" flow.
            extra: { paymentFlow: "upfront" },
          })
          .then((list) => {
            const first = list[0];
            if (!first) throw new Error(`no payment requirement could be built for ${info.caip2}`);
            return withoutDynamicFields(first);
          });
        cached.catch(() => cache.delete(key));
        cache.set(key, cached);
      }
      return cached;
    },
    async paymentRequired(requirements, resource, error) {
      // SECURITY: a stock client builds its transaction on the challenge's blockhash as given; a stale one makes every
      // payment fail simulation until a restart, so the blockhash is read from the chain for each challenge.
      const svmNetwork = svmNetworkByCaip2.get(requirements.network);
      const fresh = svmNetwork ? await currentBlockhash(svmNetwork) : null;
      const base = withoutDynamicFields(requirements);
      const offered = fresh ? { ...base, extra: { ...base.extra, ...fresh } } : base;
      const paid = paidRouteAt(new URL(resource.url).pathname);
      if (!paid)
        return server.createPaymentRequiredResponse(
          [offered],
          { url: resource.url, description: resource.description, mimeType: "application/json" },
          error,
        );
      // A copy: the resource server writes each response's signed offers into the object it is given.
      const extensions = { ...declaredExtensions(paid) };
      const challenge = await server.createPaymentRequiredResponse(
        [offered],
        {
          url: paidRouteUrl(baseUrl, paid),
          description: resource.description,
          mimeType: "application/json",
          ...SERVICE_METADATA,
        },
        error,
        extensions,
      );
      // The challenge travels in a header a default proxy bounds: its extensions go compact (compact-extensions.ts).
      return { ...challenge, extensions: compactExtensions(challenge.extensions) };
    },
    declaredExtensions,
    match(requirements, payload) {
      // A v1 payload names only its scheme and network (its `accepted` is built from them at decoding): the amount,
      // asset and payee are checked in its transaction or authorization by the stock v1 scheme's verify.
      return server.findMatchingRequirements([requirements], payload) ?? null;
    },
    async verify(payload, requirements) {
      if (!isV1Payment(payload)) return facilitator.x402.verify(payload, requirements);
      const v1 = toV1Call(networks, payload, requirements);
      return facilitator.x402.verify(v1.payload, v1.requirements);
    },
    async settle(payload, requirements) {
      if (!isV1Payment(payload)) return facilitator.x402.settle(payload, requirements);
      const v1 = toV1Call(networks, payload, requirements);
      // The service speaks of networks by CAIP-2 id, whichever version paid: v1's answer names its v1 name.
      return { ...(await facilitator.x402.settle(v1.payload, v1.requirements)), network: requirements.network };
    },
  };
}

/** `requirements` without the fields that describe the chain at one moment. */
function withoutDynamicFields(requirements: PaymentRequirements): PaymentRequirements {
  if (!requirements.extra) return requirements;
  const extra = { ...requirements.extra };
  for (const field of DYNAMIC_EXTRA_FIELDS) delete extra[field];
  return { ...requirements, extra };
}
