// What an embeddings request asks of the service before it is served: the body parsed (OpenAI's request; a `stream`
// field is refused, since embeddings are never streamed), the model offered on the call's network, and the call's
// worst-case cost, which must fit under the hold (the flat price, a prepaid budget).
import "server-only";
import { AppError } from "../errors";
import { parseWith } from "../http/parse-with";
import type { Settings } from "../settings/setting-definitions";
import {
  LOCAL_EMBEDDING_MODEL_ID,
  offeredOnNetwork,
  worstCaseEmbeddingCostUnits,
  type EmbeddingCatalogModel,
  type Upstream,
} from "../upstream";
import { embeddingInputsOf, formatUnitsAsUsdc, type NetworkRow } from "../verify";
import { embeddingsRequestSchema, type EmbeddingsRequest } from "../schemas/embeddings-request-schema";

/** An embeddings request body, parsed; 400 `streaming_not_supported` when it has a `stream` field (even false). */
export function parseEmbeddingsRequest(json: unknown): EmbeddingsRequest {
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "stream" in json) {
    throw new AppError(
      "streaming_not_supported",
      "stream: embeddings are answered in one piece; send the request without `stream`",
      { detail: "stream" },
    );
  }
  return parseWith(embeddingsRequestSchema, json);
}

/** The embedding model if it is offered on `network`, or 400 `model_not_allowed` (a chat model is not one). */
export function requireOfferedEmbeddingModel(
  upstream: Upstream,
  id: string,
  network: NetworkRow,
  settings: Pick<Settings, "testnetProviderModels">,
): EmbeddingCatalogModel {
  const model = upstream.offeredEmbeddingModel(id);
  if (!model)
    throw new AppError(
      "model_not_allowed",
      `model ${id} is not an embedding model offered here; see GET /api/v1/models`,
      { detail: "model" },
    );
  // SECURITY: testnet USDC is free; unless the operator says so, it buys the built-in model only, never provider calls.
  if (!offeredOnNetwork(model, network, settings.testnetProviderModels)) {
    throw new AppError(
      "model_not_allowed",
      `model ${id} is not offered on ${network.label}: testnets serve only ${LOCAL_EMBEDDING_MODEL_ID} (their USDC is free), unless the operator enables provider models there`,
      {
        detail: "model",
        reason: "testnet_provider_models_disabled",
      },
    );
  }
  return model;
}

/** The call's worst-case cost, refused (`refusal`) when it is above `holdUnits`. */
export function worstCaseWithin(
  model: EmbeddingCatalogModel,
  body: EmbeddingsRequest,
  holdUnits: bigint,
  refusal: (worst: bigint) => AppError,
): bigint {
  const inputs = embeddingInputsOf(body.input);
  if (inputs === null)
    throw new AppError(
      "invalid_request",
      "input: must be a string, an array of strings, an array of token ids, or an array of arrays of token ids",
      { detail: "input" },
    );
  const worst = worstCaseEmbeddingCostUnits(model, inputs);
  if (worst > holdUnits) throw refusal(worst);
  return worst;
}

/** The paid route's refusal: the inputs could cost more than the flat price. */
export function costsMoreThanPrice(model: EmbeddingCatalogModel, priceUnits: bigint): (worst: bigint) => AppError {
  return (worst) =>
    new AppError(
      "model_not_allowed",
      `model ${model.id} could cost up to ${formatUnitsAsUsdc(worst)} USDC for these inputs, more than the flat price of ${formatUnitsAsUsdc(priceUnits)} USDC; send fewer or shorter inputs`,
      {
        detail: "input",
      },
    );
}
