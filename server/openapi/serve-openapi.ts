// GET of the OpenAPI document, at /api/v1/openapi.json and at /openapi.json (where crawlers such as agentcash and
// x402scan look for it first): the same document, naming the service's public origin, each paid operation with what
// it costs now and the networks that take payment (`x-payment-info`).
import "server-only";
import type { AppContext } from "../context/app-context";
import { formatUnitsAsUsdc } from "../verify";
import { takesPaymentOn } from "../x402/payable-networks";
import { buildOpenApiDocument } from "./openapi-document";

/** The document as an answer, cached by clients for a minute (the price and the networks are settings). */
export async function openApiAnswer(
  ctx: Pick<AppContext, "config" | "gateway" | "settings" | "chains">,
): Promise<Response> {
  const settings = await ctx.settings.read();
  const networks = ctx.config.networks.rows.filter((info) => takesPaymentOn(info, ctx.gateway, settings));
  // The EVM payee is the facilitator's own key, which signs the origin; a Solana deposit address's key is the
  // operator's, held elsewhere.
  const evm = ctx.chains.facilitator.evm;
  const document = buildOpenApiDocument(ctx.config.baseUrl, ctx.config.networks, {
    flatPriceUsdc: formatUnitsAsUsdc(settings.flatPriceUnits),
    networks: networks.map((info) => info.caip2),
    ownershipProofs: evm ? [await evm.proveOwnership(ctx.config.baseUrl)] : [],
  });
  return Response.json(document, { headers: { "cache-control": "public, max-age=60" } });
}
