// The upstream facade's embeddings: runs an embeddings request on the built-in hash model or the configured
// OpenAI-compatible provider and prices it in USDC units (the provider's reported cost when given, else input tokens ×
// the catalogue price), as the facade does a completion.
import "server-only";
import { embeddingInputsOf } from "../verify";
import { embedLocally } from "./local-embedding-model";
import {
  EMBEDDING_MODEL_CATALOG,
  embeddingCostFromTokens,
  findEmbeddingModel,
  usdCostToUnits,
  type EmbeddingCatalogModel,
} from "./model-catalog";
import { UpstreamError } from "./openai-compatible-client";
import { requestEmbeddings, type ProviderEmbeddingRequest } from "./openai-compatible-embeddings";
import type { Clock } from "../clock";

/** What the embeddings part of the facade needs of the upstream config. */
export interface EmbedderConfig {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  providerName: string;
  /** Where the answers' latencies read time. */
  clock: Clock;
}

export interface EmbeddingRequest {
  model: string;
  /** `input` as sent (a parsed embeddings request's): passed to the provider unchanged; the built-in model reads it. */
  input: ProviderEmbeddingRequest["input"];
  /** The vectors' length; the model's default when absent. */
  dimensions?: number;
  /** How the caller wants the vectors written: passed to the provider as sent; the answer is read either way. */
  encoding_format?: "float" | "base64";
  user?: string;
}

export interface Embeddings {
  model: string;
  /**
   * One vector per input, in input order, as float32 values: what the response body writes (either encoding) and what
   * the receipt's response hash covers (embeddingsResponseHash).
   */
  vectors: Float32Array[];
  usage: { prompt_tokens: number; total_tokens: number };
  costUnits: bigint;
  /** Provider name for the receipt's `upstream` field (`local` for the built-in model). */
  upstream: string;
  latencyMs: number;
}

export interface Embedder {
  /** Embedding models this deployment can serve (remote ones only with an API key). */
  embeddingModels(): EmbeddingCatalogModel[];
  /** The embedding model if it is offered here, else null. */
  offeredEmbeddingModel(id: string): EmbeddingCatalogModel | null;
  /**
   * Embeds a parsed request's input. Throws UpstreamError on failure (`model_unavailable` for a model not offered,
   * `bad_response` for a malformed answer), TypeError for an input no embeddings request holds (misuse: the schema
   * refuses it) or `dimensions` past the model's largest.
   */
  embed(req: EmbeddingRequest, opts?: { signal?: AbortSignal }): Promise<Embeddings>;
}

/** The embeddings part of the upstream facade, from config (no env reads here). */
export function createEmbedder(cfg: EmbedderConfig): Embedder {
  const offeredEmbeddingModel = (id: string): EmbeddingCatalogModel | null => {
    const model = findEmbeddingModel(id);
    if (!model) return null;
    return model.provider === "local" || cfg.apiKey ? model : null;
  };
  const provider = { baseUrl: cfg.baseUrl, apiKey: cfg.apiKey!, timeoutMs: cfg.timeoutMs };
  return {
    embeddingModels: () => EMBEDDING_MODEL_CATALOG.filter((m) => offeredEmbeddingModel(m.id) !== null),
    offeredEmbeddingModel,
    async embed(req, opts = {}) {
      const model = offeredEmbeddingModel(req.model);
      if (!model) throw new UpstreamError("model_unavailable", `model ${req.model} is not offered`);
      const inputs = embeddingInputsOf(req.input);
      if (inputs === null)
        throw new TypeError("input is not an embeddings input (a text, texts, token ids or lists of token ids)");
      if (
        req.dimensions !== undefined &&
        (!Number.isSafeInteger(req.dimensions) || req.dimensions < 1 || req.dimensions > model.maxDimensions)
      ) {
        throw new TypeError(`dimensions must be an integer from 1 to ${model.maxDimensions} for ${model.id}`);
      }
      const started = cfg.clock.monotonic();
      if (model.provider === "local") {
        const answer = embedLocally(inputs, req.dimensions ?? model.defaultDimensions);
        return {
          model: model.id,
          ...answer,
          costUnits: embeddingCostFromTokens(model, answer.usage),
          upstream: "local",
          latencyMs: Math.round(cfg.clock.monotonic() - started),
        };
      }
      const sent: ProviderEmbeddingRequest = {
        model: model.id,
        input: req.input,
        ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
        ...(req.encoding_format !== undefined ? { encoding_format: req.encoding_format } : {}),
        ...(req.user !== undefined ? { user: req.user } : {}),
      };
      const answer = await requestEmbeddings(provider, sent, inputs.length, opts.signal);
      const { cost, ...usage } = answer.usage;
      return {
        model: model.id,
        vectors: answer.vectors,
        usage,
        costUnits: usdCostToUnits(cost) ?? embeddingCostFromTokens(model, usage),
        upstream: cfg.providerName,
        latencyMs: Math.round(cfg.clock.monotonic() - started),
      };
    },
  };
}
