// The upstream facade: runs a completion (or an embeddings request: embed-inputs.ts) on the built-in model or the
// configured OpenAI-compatible provider and prices it in USDC units (provider-reported cost when given, else tokens ×
// the catalogue price).
import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { createEmbedder, type Embedder } from "./embed-inputs";
import { answerLocally, estimateUsage, splitIntoTokens, type LocalAnswer } from "./local-model";
import {
  completionCap,
  costFromTokens,
  findModel,
  MODEL_CATALOG,
  usdCostToUnits,
  type CatalogModel,
} from "./model-catalog";
import {
  requestCompletion,
  streamCompletion,
  UpstreamError,
  type ProviderAnswer,
  type ProviderStreamEvent,
  type ToolCallDelta,
} from "./openai-compatible-client";
import { providerMessage, type CompletionParams, type UpstreamMessage } from "./chat-message";
import { wellFormed, wellFormedJson, wellFormedPieces } from "./well-formed-text";
import type { Clock } from "../clock";

export { UpstreamError } from "./openai-compatible-client";
export { findModel, worstCaseCostUnits, completionCap, offeredOnNetwork, LOCAL_MODEL_ID } from "./model-catalog";
export type { CatalogModel } from "./model-catalog";
export type { CompletionParams } from "./chat-message";
export { findEmbeddingModel, worstCaseEmbeddingCostUnits, LOCAL_EMBEDDING_MODEL_ID } from "./model-catalog";
export type { EmbeddingCatalogModel } from "./model-catalog";
export type { EmbeddingRequest, Embeddings } from "./embed-inputs";

export interface UpstreamConfig {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  providerName: string;
  /** Pause between the built-in model's streamed tokens, so a stream looks and behaves like one (0 = none). */
  localStreamDelayMs?: number;
  /** Where the answers' ids and latencies read time. */
  clock: Clock;
}

export interface CompletionRequest extends CompletionParams {
  model: string;
  /** The messages as sent: passed to the provider unchanged; the built-in model reads their text. */
  messages: readonly UpstreamMessage[];
  max_tokens?: number;
}

export interface Completion {
  id: string;
  /** When the answer was made, in seconds since the epoch (the body's `created`). */
  created: number;
  model: string;
  /** The answer's text (what the receipt's response hash covers); "" when it only calls tools. */
  content: string;
  /**
   * The tool calls a provider's answer makes: as it sent them in a plain answer, assembled from its fragments in a
   * stream. Not covered by the response hash, plain or streamed.
   */
  toolCalls?: readonly unknown[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  costUnits: bigint;
  /** Provider name for the receipt's `upstream` field. */
  upstream: string;
  latencyMs: number;
}

export interface Upstream extends Embedder {
  /** Models this deployment can serve (remote ones only with an API key). */
  models(): CatalogModel[];
  /** The model if it is offered here, else null. */
  offered(id: string): CatalogModel | null;
  complete(req: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<Completion>;
  /**
   * Streams one completion: text deltas and tool-call fragments, then one `done` event with the whole completion (its
   * content is the concatenated text deltas, its tool calls the assembled fragments). Throws UpstreamError on failure;
   * a consumer that stops early aborts the provider's request.
   */
  stream(req: CompletionRequest, opts?: { signal?: AbortSignal }): AsyncGenerator<StreamEvent>;
  /**
   * A stream cut short: who served it, and what it cost: the prompt and the text produced so far (`producedText` of the
   * events sent), at the catalogue prices, from our own token count (a provider reports no usage for a stream cut short).
   */
  interrupted(
    modelId: string,
    messages: CompletionRequest["messages"],
    produced: string,
  ): Pick<Completion, "model" | "upstream" | "costUnits">;
}

export type StreamEvent =
  | { type: "delta"; content: string }
  | { type: "tool_calls"; toolCalls: ToolCallDelta[] }
  | { type: "done"; completion: Completion };

/**
 * The text a stream event produced, as our own token count reads it when a provider reports no usage: a delta's text,
 * a tool-call fragment's name and arguments.
 */
export function producedText(event: Exclude<StreamEvent, { type: "done" }>): string {
  if (event.type === "delta") return event.content;
  // A name starts a call: spaced off, so it is its own word; argument pieces join as they were split.
  return event.toolCalls
    .map((d) => (d.function?.name ? ` ${d.function.name} ` : "") + (d.function?.arguments ?? ""))
    .join("");
}

/**
 * The built-in model's answer, well-formed: it echoes the prompt, which may hold a lone surrogate (see
 * well-formed-text.ts).
 */
function localAnswer(model: CatalogModel, req: CompletionRequest): LocalAnswer {
  const answer = answerLocally(req.messages, completionCap(model, req.max_tokens));
  return { ...answer, content: wellFormed(answer.content) };
}

/** A provider's stream events as they are sent on: well-formed, piece by piece (see well-formed-text.ts). */
function wellFormedEvents(): { of(event: ProviderStreamEvent): Exclude<StreamEvent, { type: "done" }>[] } {
  const pieces = wellFormedPieces();
  const toolRuns = new Set<number>();
  const fragment = (d: ToolCallDelta): ToolCallDelta => {
    const { function: fn, ...rest } = d;
    toolRuns.add(d.index);
    const out: ToolCallDelta = wellFormedJson(rest);
    if (fn) {
      const { arguments: args, ...named } = fn;
      out.function = {
        ...wellFormedJson(named),
        ...(args !== undefined ? { arguments: pieces.push(`tool:${d.index}`, args) } : {}),
      };
    }
    return out;
  };
  return {
    of(event) {
      if (event.type === "delta") {
        const piece = pieces.push("content", event.content);
        return piece !== "" || event.content === "" ? [{ type: "delta", content: piece }] : [];
      }
      if (event.type === "tool_calls") return [{ type: "tool_calls", toolCalls: event.toolCalls.map(fragment) }];
      // The end: what each run still keeps back (a high surrogate no pair followed) goes out as U+FFFD.
      const tail = pieces.flush("content");
      const tails = [...toolRuns]
        .map((index) => ({ index, function: { arguments: pieces.flush(`tool:${index}`) } }))
        .filter((d) => d.function.arguments !== "");
      return [
        ...(tail !== "" ? [{ type: "delta" as const, content: tail }] : []),
        ...(tails.length > 0 ? [{ type: "tool_calls" as const, toolCalls: tails }] : []),
      ];
    },
  };
}

/** The built-in model's answer as a completion. */
function localCompletion(model: CatalogModel, answer: LocalAnswer, started: number, clock: Clock): Completion {
  return {
    id: `local-${clock.now().toString(36)}`,
    created: Math.floor(clock.now() / 1000),
    model: model.id,
    content: answer.content,
    finishReason: "stop",
    usage: answer.usage,
    costUnits: costFromTokens(model, answer.usage),
    upstream: "local",
    latencyMs: Math.round(clock.monotonic() - started),
  };
}

/** Builds the facade from config (no env reads here). */
export function createUpstream(cfg: UpstreamConfig): Upstream {
  const offered = (id: string): CatalogModel | null => {
    const model = findModel(id);
    if (!model) return null;
    return model.provider === "local" || cfg.apiKey ? model : null;
  };
  /** The offered model for a request, or model_unavailable. */
  const modelFor = (req: CompletionRequest): CatalogModel => {
    const model = offered(req.model);
    if (!model) throw new UpstreamError("model_unavailable", `model ${req.model} is not offered`);
    return model;
  };
  const provider = { baseUrl: cfg.baseUrl, apiKey: cfg.apiKey!, timeoutMs: cfg.timeoutMs };
  /**
   * The provider's request: the messages (less what only an answer carries) and the optional parameters as sent, under
   * our model id and completion cap.
   */
  const providerRequest = (model: CatalogModel, req: CompletionRequest) => {
    const { model: _requested, messages, max_tokens: maxTokens, ...params } = req;
    const defined = Object.fromEntries(
      Object.entries(params).filter(([, v]) => v !== undefined && v !== null),
    ) as CompletionParams;
    return {
      ...defined,
      model: model.id,
      messages: messages.map(providerMessage),
      max_tokens: completionCap(model, maxTokens),
    };
  };
  /**
   * The completion of a provider's answer: priced with its reported cost, else tokens × the catalogue price. Every
   * string the provider chose is well-formed here (a stream's text was, piece by piece, as it was sent).
   */
  const providerCompletion = (model: CatalogModel, answer: ProviderAnswer, started: number): Completion => {
    const { cost, ...usage } = answer.usage;
    return {
      id: wellFormed(answer.id),
      created: Math.floor(cfg.clock.now() / 1000),
      model: model.id,
      content: wellFormed(answer.content),
      ...(answer.toolCalls ? { toolCalls: wellFormedJson(answer.toolCalls) } : {}),
      finishReason: wellFormed(answer.finishReason),
      usage,
      costUnits: usdCostToUnits(cost) ?? costFromTokens(model, usage),
      upstream: cfg.providerName,
      latencyMs: Math.round(cfg.clock.monotonic() - started),
    };
  };
  return {
    ...createEmbedder(cfg),
    models: () => MODEL_CATALOG.filter((m) => offered(m.id) !== null),
    offered,
    interrupted(modelId, messages, produced) {
      const model = findModel(modelId);
      const costUnits = model ? costFromTokens(model, estimateUsage(messages, produced)) : 0n;
      return { model: modelId, upstream: model?.provider === "local" ? "local" : cfg.providerName, costUnits };
    },
    async *stream(req, opts = {}) {
      const model = modelFor(req);
      const started = cfg.clock.monotonic();
      if (model.provider === "local") {
        const answer = localAnswer(model, req);
        for (const token of splitIntoTokens(answer.content)) {
          if (opts.signal?.aborted) throw new UpstreamError("aborted", "the caller aborted the upstream request");
          if (cfg.localStreamDelayMs) {
            await sleep(cfg.localStreamDelayMs, undefined, opts.signal ? { signal: opts.signal } : {}).catch(() => {
              throw new UpstreamError("aborted", "the caller aborted the upstream request");
            });
          }
          yield { type: "delta", content: token };
        }
        yield { type: "done", completion: localCompletion(model, answer, started, cfg.clock) };
        return;
      }
      let content = "";
      let produced = "";
      // Each piece is sent well-formed, a surrogate pair split across two events joined again: the text a client
      // concatenates is the completion's content, whatever language it reads it in.
      const pieces = wellFormedEvents();
      for await (const event of streamCompletion(provider, providerRequest(model, req), opts.signal)) {
        for (const sent of pieces.of(event)) {
          if (sent.type === "delta") content += sent.content;
          produced += producedText(sent);
          yield sent;
        }
        if (event.type !== "end") continue;
        // Without a usage event, the cost comes from our own token count at the catalogue prices: the text and the
        // tool calls produced, as for a stream cut short.
        const usage = event.usage ?? estimateUsage(req.messages, produced);
        const answer: ProviderAnswer = {
          id: event.id,
          model: event.model,
          content,
          ...(event.toolCalls ? { toolCalls: event.toolCalls } : {}),
          finishReason: event.finishReason,
          usage,
        };
        yield { type: "done", completion: providerCompletion(model, answer, started) };
      }
    },
    async complete(req, opts = {}) {
      const model = modelFor(req);
      const started = cfg.clock.monotonic();
      if (model.provider === "local") return localCompletion(model, localAnswer(model, req), started, cfg.clock);
      return providerCompletion(
        model,
        await requestCompletion(provider, providerRequest(model, req), opts.signal),
        started,
      );
    },
  };
}
