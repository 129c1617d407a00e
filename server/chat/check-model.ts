// Bounds the operator's loss on a flat price (issue #3): only catalogue models offered here, and only when the
// call's worst-case cost fits under the price.
import { AppError } from "../errors";
import { worstCaseCostUnits, type Upstream } from "../upstream";
import type { ChatRequest } from "./chat-request-schema";

/** Throws 400 `model_not_allowed` unless the model is offered and its worst case fits under `priceUnits`. */
export function checkModelAllowed(upstream: Upstream, body: ChatRequest, priceUnits: bigint): void {
  const model = upstream.offered(body.model);
  if (!model) throw new AppError("model_not_allowed", `model ${body.model} is not offered; see GET /api/v1/models`, { detail: "model" });
  const worst = worstCaseCostUnits(model, body.messages, body.max_tokens ?? body.max_completion_tokens);
  if (worst > priceUnits) {
    throw new AppError("model_not_allowed", `model ${body.model} could cost more than the flat price for this request; shorten it or lower max_tokens`, {
      detail: "model",
    });
  }
}
