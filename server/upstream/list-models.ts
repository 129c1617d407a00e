// GET /api/v1/models and /api/v1/models/{id}: the OpenAI-style list of what this deployment offers and one model of it,
// with the flat per-call price and the networks each model is offered on: those the service takes payment on now, and
// of the testnets only for the built-in model unless the operator enables more.
import "server-only";
import { AppError } from "../errors";
import type { Settings } from "../settings/setting-definitions";
import { formatUnitsAsUsdc, type NetworkRow } from "../verify";
import type { Upstream } from "./index";
import { offeredOnNetwork, type CatalogModel } from "./model-catalog";

type ModelSettings = Pick<Settings, "flatPriceUnits" | "testnetProviderModels">;

/**
 * One model as OpenAI's `models.retrieve` shapes it (`id`, `object`, `created`, `owned_by`), with its price and the
 * networks of `payable` (those the service takes payment on now) it is offered on, each under the name a request's
 * `network` field takes (its first alias).
 */
function describeModel(m: CatalogModel, settings: ModelSettings, payable: readonly NetworkRow[]) {
  return {
    id: m.id,
    object: "model" as const,
    created: 0,
    owned_by: m.provider === "local" ? "signet" : m.id.split("/")[0],
    description: m.label,
    max_tokens: m.maxTokens,
    networks: payable.filter((n) => offeredOnNetwork(m, n, settings.testnetProviderModels)).map((n) => n.aliases[0]),
    pricing: {
      per_call_usdc: formatUnitsAsUsdc(settings.flatPriceUnits),
      upstream_input_usdc_per_mtok: formatUnitsAsUsdc(m.inputUnitsPerMTok),
      upstream_output_usdc_per_mtok: formatUnitsAsUsdc(m.outputUnitsPerMTok),
    },
  };
}

/** The model list body; `payable` are the networks the service takes payment on now (payableNetworks). */
export function listModels(
  upstream: Upstream,
  settings: ModelSettings,
  payable: readonly NetworkRow[],
): { object: "list"; data: unknown[] } {
  return { object: "list", data: upstream.models().map((m) => describeModel(m, settings, payable)) };
}

/** One model of the list by its id (`<vendor>/<model>`); 404 model_not_found when this deployment does not offer it. */
export function retrieveModel(
  upstream: Upstream,
  settings: ModelSettings,
  payable: readonly NetworkRow[],
  id: string,
): ReturnType<typeof describeModel> {
  const model = upstream.models().find((m) => m.id === id);
  if (!model)
    throw new AppError(
      "model_not_found",
      "this deployment offers no model with that id; GET /api/v1/models lists them",
    );
  return describeModel(model, settings, payable);
}
