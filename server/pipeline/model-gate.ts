// Which model a call may use, and the most it may cost: a call is only served when its worst-case cost fits under its
// hold (the flat price on the paid route, the agent's budget on the prepaid one), so a capture never exceeds its hold.
import "server-only";
import { AppError } from "../errors";
import type { Settings } from "../settings/setting-definitions";
import type { NetworkRow } from "../verify";
import {
  completionCap,
  LOCAL_MODEL_ID,
  offeredOnNetwork,
  worstCaseCostUnits,
  type CatalogModel,
  type Upstream,
} from "../upstream";

/** The model if it is offered on `network`, or 400 `model_not_allowed` (with `reason` when only the network rules it out). */
export function requireOfferedModel(
  upstream: Upstream,
  id: string,
  network: NetworkRow,
  settings: Pick<Settings, "testnetProviderModels">,
): CatalogModel {
  const model = upstream.offered(id);
  if (!model)
    throw new AppError("model_not_allowed", `model ${id} is not offered; see GET /api/v1/models`, { detail: "model" });
  // SECURITY: testnet USDC is free; unless the operator says so, it buys the built-in model only, never provider calls.
  if (!offeredOnNetwork(model, network, settings.testnetProviderModels)) {
    throw new AppError(
      "model_not_allowed",
      `model ${id} is not offered on ${network.label}: testnets serve only ${LOCAL_MODEL_ID} (their USDC is free), unless the operator enables provider models there; use a mainnet, or see GET /api/v1/models`,
      { detail: "model", reason: "testnet_provider_models_disabled" },
    );
  }
  return model;
}

/**
 * The completion cap for a call whose hold is fixed (the flat price): the request's `max_tokens` (else the model's),
 * refused when even that could cost more than the hold.
 */
export function capWithinFixedHold(
  model: CatalogModel,
  messages: readonly unknown[],
  maxTokens: number | undefined,
  holdUnits: bigint,
): number {
  const cap = completionCap(model, maxTokens);
  if (worstCaseCostUnits(model, messages, cap) > holdUnits) {
    throw new AppError(
      "model_not_allowed",
      `model ${model.id} could cost more than the flat price for this request; shorten it or lower max_tokens`,
      {
        detail: "model",
      },
    );
  }
  return cap;
}

/**
 * The completion cap under a budget (`max_cost_usdc`, a hard cap): the largest cap whose worst case, for what the
 * provider reads as prompt (`messages`, with any tool definitions), fits under it. A budget that cannot cover even one
 * token is a 400.
 */
export function capWithinBudget(
  model: CatalogModel,
  messages: readonly unknown[],
  maxTokens: number | undefined,
  budgetUnits: bigint | null,
): number {
  let cap = completionCap(model, maxTokens);
  if (budgetUnits === null) return cap;
  while (cap > 0 && worstCaseCostUnits(model, messages, cap) > budgetUnits) {
    // Shrink geometrically, then linearly: at most a few dozen evaluations.
    cap = cap > 64 ? Math.floor(cap * 0.75) : cap - 1;
  }
  if (cap < 1)
    throw new AppError("invalid_request", "max_cost_usdc is too low to cover this prompt and one token of answer", {
      detail: "max_cost_usdc",
    });
  return cap;
}
