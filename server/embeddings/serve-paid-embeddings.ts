// The paid embeddings call: admit an x402 payment (its settlement credit and the call's hold are one statement), then
// the shared pipeline serves the embeddings job from that hold and captures exactly its cost, with a signed receipt
// over the inputs and the vectors. A repeat of the paid request gets its kept answer. Every exit is a stable error code.
import "server-only";
import type { AppContext } from "../context/app-context";
import { AppError } from "../errors";
import { admitPayment, planPayment } from "../payments/admit-payment";
import { answerAgain } from "../payments/answer-again";
import { paidCallSettlement } from "../payments/paid-call-settlement";
import type { PaidRequestState } from "../payments/paid-request-types";
import { markUnserved } from "../payments/payment-store";
import { movesOf } from "../ledger/payment-transition";
import type { ServedCall } from "../pipeline/call-types";
import { admitNetwork } from "../pipeline/network-gate";
import { serveCall } from "../pipeline/serve-call";
import { paidRoute, paidRouteAdmission } from "../x402/paid-routes";
import { costsMoreThanPrice, requireOfferedEmbeddingModel, worstCaseWithin } from "./embeddings-call";
import { embeddingsJob } from "./embeddings-job";
import type { EmbeddingsRequest } from "../schemas/embeddings-request-schema";

export interface PaidEmbeddingsInput {
  body: EmbeddingsRequest;
  headers: Headers;
  /** The public URL of the resource, for the challenge. */
  resourceUrl: string;
}

/** Serves one embeddings request on the paid route. Throws AppError for every refusal. */
export async function servePaidEmbeddings(ctx: AppContext, input: PaidEmbeddingsInput): Promise<ServedCall> {
  const { body } = input;
  const { planned, outcome } = await admitPayment(ctx, {
    headers: input.headers,
    plan: (state) => planEmbeddings(ctx, body, state),
    admission: ({ plan }) => ({
      resourceUrl: input.resourceUrl,
      ...paidRouteAdmission("embeddings"),
      requestDigest: paidRoute("embeddings").requestDigest!(body, plan.network),
    }),
  });
  switch (outcome.kind) {
    case "answered":
      return answerAgain(ctx, outcome.payment, { stream: false });
    case "challenge":
    case "refused":
    case "replay":
    case "pending":
      throw outcome.error;
    case "retry-unserved":
    case "settled": {
      const payment = outcome.payment;
      // A retry of a payment made at an older, lower price: its hold is what it paid, so the worst case must fit that.
      try {
        worstCaseWithin(planned.model, body, payment.units, costsMoreThanPrice(planned.model, payment.units));
      } catch (err) {
        await markUnserved(ctx.db, payment, movesOf({ type: "not-served" }), "model_not_allowed");
        throw err;
      }
      const pointsBefore = outcome.kind === "settled" ? outcome.pointsBefore : undefined;
      const settlement = paidCallSettlement(ctx, payment, "embeddings");
      const reservation = {
        holdId: payment.id,
        agentPubkey: payment.payer,
        network: payment.network,
        holdUnits: payment.units,
        settlement,
        pointsBefore,
      };
      return serveCall(ctx, reservation, embeddingsJob(body, planned.model.id));
    }
  }
}

/** The call's network, model and payment plan under the request's settings; throws its refusal. */
async function planEmbeddings(ctx: AppContext, body: EmbeddingsRequest, state: PaidRequestState) {
  const { settings } = state;
  if (settings.flatPriceUnits > settings.maxPriceUnits) {
    throw new AppError("server_misconfigured", "the flat price is above the price ceiling; no payment is requested");
  }
  const network = admitNetwork(ctx.log, ctx.config.networks, settings, body.network, "chat");
  const model = requireOfferedEmbeddingModel(ctx.upstream, body.model, ctx.config.networks.get(network), settings);
  // SECURITY: the flat price is the call's hold; the inputs' worst-case cost must fit within it.
  worstCaseWithin(model, body, settings.flatPriceUnits, costsMoreThanPrice(model, settings.flatPriceUnits));
  const plan = await planPayment(ctx, settings, network, settings.flatPriceUnits);
  return { settings, model, plan };
}
