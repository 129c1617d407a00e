// GET /.well-known/x402: what an x402 client or crawler needs to find and pay this service. First the form x402
// crawlers read (`version`, the paid resources' URLs, `instructions`, `ownershipProofs`); then the paid resources
// (every row of the paid-route registry) with their requirements per network (asset, price, payTo, fee payer) and the
// x402 extensions their 402s declare (bazaar discovery metadata, payment ids), the prepaid routes, the keys, the DID
// document and the verifier, and the RPC endpoint the service uses per network (when the operator publishes them).
import { MCP_PATH, MCP_TOOLS, mcpDiscovery } from "../mcp/mcp-payment-binding";
import "server-only";
import { BAZAAR } from "@x402/extensions/bazaar";
import { PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import type { PaymentRequirements } from "@x402/core/types";
import type { AppContext } from "../context/app-context";
import { logEvent } from "../log";
import type { Settings } from "../settings/setting-definitions";
import { familyFacts } from "../verify/chain-family-facts";
import { depositAddressFor } from "../x402/deposit-address";
import { takesPaymentOn } from "../x402/payable-networks";
import { PAID_ROUTE_REGISTRY, PAID_ROUTES, paidRouteUrl, SERVICE_TAGS, type PaidRoute } from "../x402/paid-routes";
import { advertisedRpcUrls } from "./advertised-rpc-urls";
import { didWebOf } from "../keys/did-web-document";

/** The discovery document for a service at `baseUrl` (see `discoverySchema`). */
export async function buildX402Discovery(ctx: AppContext, settings: Settings, baseUrl: string) {
  const rpcs = advertisedRpcUrls(ctx.config);
  const networks = [];
  const accepts: (PaymentRequirements & { feePayer?: string })[] = [];
  for (const info of ctx.config.networks.rows) {
    const id = info.id;
    const enabled = takesPaymentOn(info, ctx.gateway, settings);
    networks.push({
      network: info.caip2,
      name: info.label,
      asset: info.usdcAsset,
      rpc: rpcs[info.caip2] ?? null,
      enabled,
    });
    if (!enabled) continue;
    try {
      const payTo = depositAddressFor(ctx, settings, id);
      const requirements = await ctx.gateway.requirements(id, settings.flatPriceUnits, payTo);
      const extra = (requirements.extra ?? {}) as Record<string, unknown>;
      // A blockhash in a cached requirement is stale by the time anyone reads this; the 402 carries a fresh one.
      const { recentBlockhash: _b, lastValidBlockHeight: _h, ...stable } = extra;
      // Solana: the facilitator co-signs as fee payer; EVM: the facilitator's key relays the authorization and pays
      // the gas, and is the payee.
      const feePayer =
        typeof extra.feePayer === "string" ? extra.feePayer : familyFacts(info).payeePaysGas ? payTo : undefined;
      accepts.push({ ...requirements, extra: stable, ...(feePayer ? { feePayer } : {}) });
    } catch (err) {
      // A misconfigured or unreachable network is left out rather than failing the whole document.
      logEvent(
        ctx.log,
        "discovery.network_skipped",
        { network: info.caip2, reason: err instanceof Error ? err.message.slice(0, 100) : "unknown" },
        "warn",
      );
    }
  }
  // The declarations of the resource's own 402s. A top-up's 402 asks for the amount its body names: its accepts here
  // show the smallest, the flat price.
  const resource = (paid: PaidRoute) => {
    const declared = ctx.gateway.declaredExtensions(paid);
    const row = PAID_ROUTE_REGISTRY[paid];
    return {
      resource: paidRouteUrl(baseUrl, paid),
      method: row.method,
      description: row.description,
      mimeType: "application/json",
      accepts,
      extensions: { [BAZAAR.key]: declared[BAZAAR.key], [PAYMENT_IDENTIFIER]: declared[PAYMENT_IDENTIFIER] },
    };
  };
  const evm = ctx.chains.facilitator.evm;
  return {
    // What x402 crawlers read (x402scan's and agentcash's form of this document); the facts follow it.
    version: 1 as const,
    resources: PAID_ROUTES.map((paid) => paidRouteUrl(baseUrl, paid)),
    instructions: discoveryInstructions(baseUrl),
    ownershipProofs: evm ? [await evm.proveOwnership(baseUrl)] : [],
    x402Version: 2 as const,
    service: {
      name: "Signet",
      tags: [...SERVICE_TAGS],
      url: baseUrl,
      openapi: `${baseUrl}/api/v1/openapi.json`,
      docs: `${baseUrl}/docs`,
    },
    operator_key_url: `${baseUrl}/api/v1/operator-key`,
    did: { id: didWebOf(baseUrl), document: `${baseUrl}/.well-known/did.json` },
    verifier: { url: `${baseUrl}/api/verify`, key_url: `${baseUrl}/api/verify/operator-key` },
    receipt_log: {
      origin: ctx.keys.log().origin,
      verifier_key: ctx.keys.log().verifierKey,
      prefix: `${baseUrl}/log`,
      checkpoint: `${baseUrl}/log/checkpoint`,
      key_url: `${baseUrl}/log/key`,
    },
    paid_resources: PAID_ROUTES.map(resource),
    mcp: mcpDiscovery(baseUrl),
    prepaid: {
      topup: `${baseUrl}/api/v1/credits`,
      inference: `${baseUrl}/api/v1/inference`,
      // The paid routes that also serve a request signed for their path from prepaid credit.
      ...Object.fromEntries(
        PAID_ROUTES.filter((r) => PAID_ROUTE_REGISTRY[r].prepaidSigning).map((r) => [r, paidRouteUrl(baseUrl, r)]),
      ),
      grant_challenge: `${baseUrl}/api/v1/grants/challenge`,
      grants: `${baseUrl}/api/v1/grants`,
    },
    networks,
  };
}

/** The crawlers' `instructions`: what a call is, how it is paid, and where the rest is described. */
function discoveryInstructions(baseUrl: string): string {
  return [
    "Signet: OpenAI-compatible inference (chat completions, the Responses API, embeddings), paid per call with x402 in USDC on Solana or Base, each answer with an Ed25519-signed receipt.",
    `POST a request without payment to get the 402 challenge; pay it and send the same request with PAYMENT-SIGNATURE. Prepaid credit (POST ${baseUrl}/api/v1/credits) is spent by Ed25519-signed requests instead.`,
    `Every route and its price: ${baseUrl}/openapi.json. Receipts verify at ${baseUrl}/api/verify or offline with the published operator key.`,
    `MCP: ${baseUrl}${MCP_PATH} (streamable HTTP) serves the paid tools ${MCP_TOOLS.paid.join(" and ")} over x402's MCP transport, and the free tools ${MCP_TOOLS.free.join(", ")}.`,
  ].join("\n");
}
