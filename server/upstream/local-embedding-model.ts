// The built-in embedding model `local/hash-embed-1`: deterministic, offline, no weights, and NOT semantic. A vector is
// derived from SHA-256 of its input alone, so one input gets one vector on every run and machine, and two similar
// texts get unrelated vectors. It is a test double for an embedding model, never a stand-in for one.
import "server-only";
import { createHash } from "node:crypto";
import { canonicalJson, type EmbeddingInput } from "../verify";
import { countTokens } from "./local-model";

export interface LocalEmbeddings {
  /** One unit-length vector per input, in input order. */
  vectors: Float32Array[];
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The model's name starts every hashed text, so no other use of SHA-256 here yields its values. */
const HASH_DOMAIN = "local/hash-embed-1";
/** A SHA-256 digest is 32 bytes: eight big-endian uint32 words, one value each. */
const VALUES_PER_DIGEST = 8;
/** A word w maps to w / 2^31 - 1, in [-1, 1): exact in binary64, so every machine computes the same value. */
const WORD_SCALE = 2 ** 31;

/**
 * The vector of one input at `dimensions`: value i is word i mod 8 of SHA-256(UTF-8 of "local/hash-embed-1\n" + the
 * input's canonical JSON + "\n" + floor(i / 8) in decimal), scaled to [-1, 1); the vector is then divided by its
 * Euclidean norm (summed in index order, in binary64) and each value rounded to float32. So it has unit length, and a
 * shorter vector is the longer one's first values, normalised again (as OpenAI's `dimensions` shortens a vector).
 */
export function hashEmbedding(input: EmbeddingInput, dimensions: number): Float32Array {
  if (!Number.isSafeInteger(dimensions) || dimensions < 1)
    throw new RangeError(`dimensions must be a positive integer, not ${dimensions}`);
  const key = canonicalJson(input);
  const raw = new Float64Array(dimensions);
  for (let block = 0; block * VALUES_PER_DIGEST < dimensions; block++) {
    const digest = createHash("sha256").update(`${HASH_DOMAIN}\n${key}\n${block}`, "utf8").digest();
    for (let k = 0; k < VALUES_PER_DIGEST && block * VALUES_PER_DIGEST + k < dimensions; k++) {
      raw[block * VALUES_PER_DIGEST + k] = digest.readUInt32BE(4 * k) / WORD_SCALE - 1;
    }
  }
  let sumOfSquares = 0;
  for (const value of raw) sumOfSquares += value * value;
  const norm = Math.sqrt(sumOfSquares);
  // A Float32Array rounds each value it stores to the nearest float32 (ties to even).
  const vector = new Float32Array(dimensions);
  if (norm > 0) for (let i = 0; i < dimensions; i++) vector[i] = raw[i]! / norm;
  return vector;
}

/**
 * Embeds every input at `dimensions`, with usage by our own count: a text's words and punctuation marks (at least one
 * token each), a token list's length.
 */
export function embedLocally(inputs: readonly EmbeddingInput[], dimensions: number): LocalEmbeddings {
  const tokens = inputs.reduce(
    (n, input) => n + (typeof input === "string" ? Math.max(1, countTokens(input)) : input.length),
    0,
  );
  return {
    vectors: inputs.map((input) => hashEmbedding(input, dimensions)),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
