// The prepaid chat call: a chat completion request signed like a prepaid inference request (X-Agent-Pubkey and
// X-Agent-Signature over `POST <origin>/api/v1/chat/completions` and the exact body bytes; `nonce` and `timestamp` in
// the body, `max_cost_usdc` optional), admitted and served from credit by the prepaid route's own path. The body is the
// paid route's, every parameter passed the same way; the hold is its worst case (tool definitions included) under the
// budget, and the answer, plain or streamed, and its receipt are the paid route's shape.
import "server-only";
import type { AppContext } from "../context/app-context";
import { parseWith } from "../http/parse-with";
import type { ServedCall } from "../pipeline/call-types";
import { capWithinBudget, requireOfferedModel } from "../pipeline/model-gate";
import { budgetUnitsOf, servePrepaidInference, type PrepaidCall } from "../prepaid/serve-prepaid-inference";
import { chatRequestSchema, type ChatRequest } from "../schemas/chat-request-schema";
import { signedFieldsSchema, type SignedFields } from "../schemas/signed-fields-schema";
import { worstCaseCostUnits } from "../upstream";
import { paidRoute } from "../x402/paid-routes";
import { chatCall, promptSent } from "./chat-call";

/** Serves one signed chat request from credit. Throws AppError for every refusal; nothing moves before the hold. */
export function servePrepaidChat(ctx: AppContext, headers: Headers, rawBody: Uint8Array): Promise<ServedCall> {
  return servePrepaidInference(ctx, headers, rawBody, { path: paidRoute("chat").path, parse: prepaidChatCall });
}

function prepaidChatCall(json: unknown): PrepaidCall {
  return prepaidChat(parseWith(chatRequestSchema, json), parseWith(signedFieldsSchema, json));
}

/**
 * A chat body served from credit: its replay fields, and its plan under the budget (the hold is the worst case of what
 * the provider reads as prompt, tool definitions included; the job passes every parameter as the paid route does).
 * The Responses route's signed requests are planned by it too, from the chat body they map to.
 */
export function prepaidChat(body: ChatRequest, signed: SignedFields): PrepaidCall {
  const budget = budgetUnitsOf(signed.max_cost_usdc);
  return {
    nonce: signed.nonce,
    timestamp: signed.timestamp,
    network: body.network,
    plan(ctx, network, settings) {
      const model = requireOfferedModel(ctx.upstream, body.model, network, settings);
      const prompt = promptSent(body);
      const cap = capWithinBudget(model, prompt, body.max_tokens ?? body.max_completion_tokens ?? undefined, budget);
      return { holdUnits: worstCaseCostUnits(model, prompt, cap), job: chatCall(body, model.id, cap) };
    },
  };
}
