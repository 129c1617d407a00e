// The upstream facade: runs a completion on the built-in model or the configured OpenAI-compatible provider and
// prices it in USDC units (provider-reported cost when given, else tokens × the catalogue price).
import { answerLocally } from "./local-model";
import { completionCap, costFromTokens, findModel, MODEL_CATALOG, usdCostToUnits, type CatalogModel } from "./model-catalog";
import { requestCompletion, UpstreamError } from "./openai-compatible-client";

export { UpstreamError } from "./openai-compatible-client";
export type { UpstreamFailure } from "./openai-compatible-client";
export { findModel, worstCaseCostUnits, completionCap, MODEL_CATALOG, LOCAL_MODEL_ID } from "./model-catalog";
export type { CatalogModel } from "./model-catalog";

export interface UpstreamConfig {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  providerName: string;
}

export interface CompletionRequest {
  model: string;
  messages: readonly { role: string; content: string }[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
}

export interface Completion {
  id: string;
  model: string;
  content: string;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  costUnits: bigint;
  /** Provider name for the receipt's `upstream` field. */
  upstream: string;
  latencyMs: number;
}

export interface Upstream {
  /** Models this deployment can serve (remote ones only with an API key). */
  models(): CatalogModel[];
  /** The model if it is offered here, else null. */
  offered(id: string): CatalogModel | null;
  complete(req: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<Completion>;
}

/** Builds the facade from config (no env reads here). */
export function createUpstream(cfg: UpstreamConfig): Upstream {
  const offered = (id: string): CatalogModel | null => {
    const model = findModel(id);
    if (!model) return null;
    return model.provider === "local" || cfg.apiKey ? model : null;
  };
  return {
    models: () => MODEL_CATALOG.filter((m) => offered(m.id) !== null),
    offered,
    async complete(req, opts = {}) {
      const model = offered(req.model);
      if (!model) throw new UpstreamError("model_unavailable", `model ${req.model} is not offered`);
      const maxTokens = completionCap(model, req.max_tokens);
      const started = performance.now();
      if (model.provider === "local") {
        const answer = answerLocally(req.messages, maxTokens);
        return {
          id: `local-${Date.now().toString(36)}`,
          model: model.id,
          content: answer.content,
          finishReason: "stop",
          usage: answer.usage,
          costUnits: costFromTokens(model, answer.usage),
          upstream: "local",
          latencyMs: Math.round(performance.now() - started),
        };
      }
      const answer = await requestCompletion(
        { baseUrl: cfg.baseUrl, apiKey: cfg.apiKey!, timeoutMs: cfg.timeoutMs },
        {
          model: model.id,
          messages: req.messages,
          max_tokens: maxTokens,
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          ...(req.top_p !== undefined ? { top_p: req.top_p } : {}),
          ...(req.stop !== undefined ? { stop: req.stop } : {}),
        },
        opts.signal,
      );
      const { cost, ...usage } = answer.usage;
      return {
        id: answer.id,
        model: model.id,
        content: answer.content,
        finishReason: answer.finishReason,
        usage,
        costUnits: usdCostToUnits(cost) ?? costFromTokens(model, usage),
        upstream: cfg.providerName,
        latencyMs: Math.round(performance.now() - started),
      };
    },
  };
}
