// The paid chat call: admit an x402 payment (its settlement credit and the call's hold are one statement), then the
// shared pipeline serves the call from that hold and captures exactly its cost. Every exit is a stable error code.
import "server-only";
import type { AppContext } from "../context/app-context";
import type { NetworkId } from "../verify";
import { AppError } from "../errors";
import { admitPayment, planPayment } from "../payments/admit-payment";
import { answerAgain } from "../payments/answer-again";
import { paidCallSettlement } from "../payments/paid-call-settlement";
import type { PaidRequestState } from "../payments/paid-request-types";
import { markUnserved } from "../payments/payment-store";
import { movesOf } from "../ledger/payment-transition";
import type { ServedCall } from "../pipeline/call-types";
import { capWithinFixedHold, requireOfferedModel } from "../pipeline/model-gate";
import { admitNetwork } from "../pipeline/network-gate";
import { serveCall } from "../pipeline/serve-call";
import { chatRequestDigest } from "../x402/request-digest";
import { paidRouteAdmission, type PaidRoute } from "../x402/paid-routes";
import type { ChatRequest } from "../schemas/chat-request-schema";
import { chatCall, promptSent } from "./chat-call";

export interface PaidChatInput {
  body: ChatRequest;
  headers: Headers;
  /** The public URL of the resource, for the challenge. */
  resourceUrl: string;
  /**
   * What the payment is bound to, when the call came in on another route in another shape (the responses route maps
   * its request onto this chat body): that route's request digest and resource description. Absent: the chat route's.
   */
  binding?: PaidCallBinding;
}

/** Another route's binding of the payment to its own request (see PaidChatInput.binding). */
interface PaidCallBinding {
  /** The paid resource the call is (its challenge's description and its x402 signed receipt name it). */
  resource: PaidRoute;
  /** The digest of the request as that route received it, under the call's resolved network. */
  requestDigest: (network: NetworkId) => string;
}

/** Serves one chat request on the paid route. Throws AppError for every refusal. */
export async function servePaidChat(ctx: AppContext, input: PaidChatInput): Promise<ServedCall> {
  const { body } = input;
  const { planned, outcome } = await admitPayment(ctx, {
    headers: input.headers,
    plan: (state) => planChat(ctx, input, state),
    admission: ({ plan }) => ({
      resourceUrl: input.resourceUrl,
      ...paidRouteAdmission(input.binding?.resource ?? "chat"),
      requestDigest: input.binding ? input.binding.requestDigest(plan.network) : chatRequestDigest(body, plan.network),
    }),
  });
  const { settings, model, cap } = planned;
  switch (outcome.kind) {
    case "answered":
      return answerAgain(ctx, outcome.payment, {
        stream: body.stream === true,
        usageChunk: body.stream_options?.include_usage === true,
      });
    case "challenge":
    case "refused":
    case "replay":
    case "pending":
      throw outcome.error;
    case "retry-unserved":
    case "settled": {
      const payment = outcome.payment;
      let callCap = cap;
      if (payment.units < settings.flatPriceUnits) {
        // A retry of a payment made at an older, lower price: its hold is what it paid, so the cap must fit that.
        try {
          callCap = capWithinFixedHold(model, promptSent(body), cap, payment.units);
        } catch (err) {
          await markUnserved(ctx.db, payment, movesOf({ type: "not-served" }), "model_not_allowed");
          throw err;
        }
      }
      const pointsBefore = outcome.kind === "settled" ? outcome.pointsBefore : undefined;
      const settlement = paidCallSettlement(ctx, payment, input.binding?.resource);
      const reservation = {
        holdId: payment.id,
        agentPubkey: payment.payer,
        network: payment.network,
        holdUnits: payment.units,
        settlement,
        pointsBefore,
      };
      return serveCall(ctx, reservation, chatCall(body, model.id, callCap));
    }
  }
}

/** The call's network, model, completion cap and payment plan under the request's settings; throws its refusal. */
async function planChat(ctx: AppContext, input: PaidChatInput, state: PaidRequestState) {
  const { body } = input;
  const { settings } = state;
  if (settings.flatPriceUnits > settings.maxPriceUnits) {
    throw new AppError("server_misconfigured", "the flat price is above the price ceiling; no payment is requested");
  }
  const network = admitNetwork(ctx.log, ctx.config.networks, settings, body.network, "chat");
  const model = requireOfferedModel(ctx.upstream, body.model, ctx.config.networks.get(network), settings);
  // SECURITY: the flat price is the call's hold; the completion cap keeps its worst-case cost within it.
  const cap = capWithinFixedHold(
    model,
    promptSent(body),
    body.max_tokens ?? body.max_completion_tokens ?? undefined,
    settings.flatPriceUnits,
  );
  const plan = await planPayment(ctx, settings, network, settings.flatPriceUnits);
  return { settings, model, cap, plan };
}
