// The one price table: which models are offered, their completion caps, and their per-token prices in USDC units.
// A flat-price call is only offered for a model whose worst-case cost fits under the price (never sold at a loss).
import "server-only";
import { parseUsdcToUnits, type EmbeddingInput } from "../verify";

export interface CatalogModel {
  id: string;
  /** `local` is the built-in deterministic model; anything else is the configured OpenAI-compatible provider. */
  provider: "local" | "remote";
  label: string;
  /** Most completion tokens a call may ask for. */
  maxTokens: number;
  /** USDC atomic units per 1,000,000 tokens. */
  inputUnitsPerMTok: bigint;
  outputUnitsPerMTok: bigint;
}

/** The built-in model: deterministic, offline, and never passed off as a real LLM. */
export const LOCAL_MODEL_ID = "local/echo-1";

export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    id: LOCAL_MODEL_ID,
    provider: "local",
    label: "Built-in deterministic test model (not an LLM)",
    maxTokens: 256,
    // Nominal prices so the ledger sees a real, non-zero cost per call.
    inputUnitsPerMTok: 100_000n,
    outputUnitsPerMTok: 200_000n,
  },
  {
    id: "openai/gpt-4o-mini",
    provider: "remote",
    label: "OpenAI GPT-4o mini",
    maxTokens: 1024,
    inputUnitsPerMTok: 150_000n,
    outputUnitsPerMTok: 600_000n,
  },
  {
    id: "meta-llama/llama-3.1-8b-instruct",
    provider: "remote",
    label: "Llama 3.1 8B Instruct",
    maxTokens: 1024,
    inputUnitsPerMTok: 20_000n,
    outputUnitsPerMTok: 50_000n,
  },
  {
    id: "anthropic/claude-3.5-haiku",
    provider: "remote",
    label: "Claude 3.5 Haiku",
    maxTokens: 512,
    inputUnitsPerMTok: 800_000n,
    outputUnitsPerMTok: 4_000_000n,
  },
];

/**
 * Whether `model` is offered on a network. Testnets serve the built-in model only unless the operator enables provider
 * models there: their USDC is free from a faucet, and must not buy real provider inference.
 */
export function offeredOnNetwork(
  model: Pick<CatalogModel, "provider">,
  network: { isMainnet: boolean },
  testnetProviderModels: boolean,
): boolean {
  return model.provider === "local" || network.isMainnet || testnetProviderModels;
}

/** The catalogue entry for `id`, or null. */
export function findModel(id: string): CatalogModel | null {
  return MODEL_CATALOG.find((m) => m.id === id) ?? null;
}

const PER_MTOK = 1_000_000n;

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** The completion cap for a request: the smaller of what it asks and the model's cap. */
export function completionCap(model: CatalogModel, requested?: number): number {
  return requested === undefined ? model.maxTokens : Math.min(requested, model.maxTokens);
}

/**
 * An upper bound on a call's cost before it runs: input tokens are at most the UTF-8 bytes of the serialized messages
 * (a BPE token covers at least one byte), output tokens at most the completion cap. Rounded up to the unit.
 */
export function worstCaseCostUnits(model: CatalogModel, messages: readonly unknown[], maxTokens?: number): bigint {
  const inputBound = BigInt(new TextEncoder().encode(JSON.stringify(messages)).byteLength);
  const outputBound = BigInt(completionCap(model, maxTokens));
  return ceilDiv(inputBound * model.inputUnitsPerMTok + outputBound * model.outputUnitsPerMTok, PER_MTOK);
}

/** The cost of a call from its token usage, rounded up to the unit. */
export function costFromTokens(
  model: CatalogModel,
  usage: { prompt_tokens: number; completion_tokens: number },
): bigint {
  return ceilDiv(
    BigInt(usage.prompt_tokens) * model.inputUnitsPerMTok + BigInt(usage.completion_tokens) * model.outputUnitsPerMTok,
    PER_MTOK,
  );
}

/** A provider's reported USD cost (OpenRouter `usage.cost`, a float) in units, rounded up; null when unusable. */
export function usdCostToUnits(cost: unknown): bigint | null {
  if (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0) return null;
  const exact = parseUsdcToUnits(String(cost));
  if (exact !== null) return exact;
  // Finer than one unit: scale the decimal string by 10^6 and round up, still without float arithmetic.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(cost));
  if (!m) return null;
  const digits = BigInt((m[1] ?? "0") + (m[2] ?? ""));
  const shift = Number(m[3] ?? "0") - (m[2] ?? "").length + 6;
  return shift >= 0 ? digits * 10n ** BigInt(shift) : ceilDiv(digits, 10n ** BigInt(-shift));
}

/**
 * A model that embeds text (`POST /api/v1/embeddings`), kept apart from the chat models above so that neither route
 * serves the other's: the length of its vectors and its price per input token.
 */
export interface EmbeddingCatalogModel {
  id: string;
  /** `local` is the built-in hash embedding; anything else is the configured OpenAI-compatible provider. */
  provider: "local" | "remote";
  label: string;
  /** The length of a vector when the request sets no `dimensions`. */
  defaultDimensions: number;
  /** The largest `dimensions` a request may ask for (a shorter vector is the model's own, shortened). */
  maxDimensions: number;
  /** USDC atomic units per 1,000,000 input tokens (an embedding has no output tokens). */
  inputUnitsPerMTok: bigint;
}

/** The built-in embedding model: deterministic, offline, no weights, and NOT semantic (local-embedding-model.ts). */
export const LOCAL_EMBEDDING_MODEL_ID = "local/hash-embed-1";

export const EMBEDDING_MODEL_CATALOG: readonly EmbeddingCatalogModel[] = [
  {
    id: LOCAL_EMBEDDING_MODEL_ID,
    provider: "local",
    label: "Built-in hash embedding test model: NOT semantic (similar texts are not close; no weights)",
    defaultDimensions: 256,
    maxDimensions: 3072,
    // A nominal price, as for local/echo-1, so the ledger sees a real, non-zero cost per call.
    inputUnitsPerMTok: 100_000n,
  },
  {
    id: "openai/text-embedding-3-small",
    provider: "remote",
    label: "OpenAI text-embedding-3-small",
    defaultDimensions: 1536,
    maxDimensions: 1536,
    inputUnitsPerMTok: 20_000n,
  },
  {
    id: "openai/text-embedding-3-large",
    provider: "remote",
    label: "OpenAI text-embedding-3-large",
    defaultDimensions: 3072,
    maxDimensions: 3072,
    inputUnitsPerMTok: 130_000n,
  },
];

/** The embedding catalogue entry for `id`, or null (a chat model is not one). */
export function findEmbeddingModel(id: string): EmbeddingCatalogModel | null {
  return EMBEDDING_MODEL_CATALOG.find((m) => m.id === id) ?? null;
}

/** The cost of an embeddings call from its input token usage, rounded up to the unit. */
export function embeddingCostFromTokens(model: EmbeddingCatalogModel, usage: { prompt_tokens: number }): bigint {
  return ceilDiv(BigInt(usage.prompt_tokens) * model.inputUnitsPerMTok, PER_MTOK);
}

/**
 * An upper bound on an embeddings call's cost before it runs: a text is at most its UTF-8 bytes in tokens (a BPE token
 * covers at least one byte; at least one token each), a token list its length. Rounded up to the unit.
 */
export function worstCaseEmbeddingCostUnits(model: EmbeddingCatalogModel, inputs: readonly EmbeddingInput[]): bigint {
  const encoder = new TextEncoder();
  let tokens = 0n;
  for (const input of inputs)
    tokens += BigInt(Math.max(1, typeof input === "string" ? encoder.encode(input).byteLength : input.length));
  return ceilDiv(tokens * model.inputUnitsPerMTok, PER_MTOK);
}
