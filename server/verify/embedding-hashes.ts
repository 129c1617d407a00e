// The hashes of an embeddings call (docs/receipts.md): `prompt_hash` over its inputs as a list, `response_hash` over
// its vectors as float32 values, whichever encoding (float or base64) carried them. The service hashes with these
// functions and a verifier recomputes with them, so both read a request and an answer the same way. Pure and
// browser-safe.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";
import { decodeBase64, encodeBase64 } from "./signed-note";

/** One input of an embeddings call: a text, or a list of token ids. */
export type EmbeddingInput = string | readonly number[];

/**
 * An incremental SHA-256: noble's `sha256.create()` by default; a server may pass node's `createHash("sha256")`.
 * Fed the UTF-8 bytes of the canonical text piece by piece, so a large answer is never one string in memory.
 */
export type Sha256Incremental = () => { update(bytes: Uint8Array): unknown; digest(): Uint8Array };

const nobleIncremental: Sha256Incremental = () => sha256.create();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A token id as the hash reads it: a whole number from 0, exactly representable (JSON writes it as plain digits). */
function isTokenId(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isTokenList(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every(isTokenId);
}

/**
 * The inputs of an embeddings request's `input`, as the list the prompt hash covers: a text is a list of that one
 * text; a non-empty list of texts is itself; a non-empty list of token ids is a list of that one list; a non-empty list
 * of non-empty token-id lists is itself. Null for anything else (an empty list, texts mixed with ids, a fractional or
 * negative id), which is no embeddings input.
 */
export function embeddingInputsOf(input: unknown): EmbeddingInput[] | null {
  if (typeof input === "string") return [input];
  if (!Array.isArray(input) || input.length === 0) return null;
  if (input.every((item) => typeof item === "string")) return input as string[];
  if (isTokenList(input)) return [input];
  if (input.every(isTokenList)) return input as number[][];
  return null;
}

/**
 * The prompt hash of an embeddings call: SHA-256 (lower-case hex) of the canonical JSON of its inputs as a list
 * (embeddingInputsOf), so `"hi"` and `["hi"]` hash alike. Null when `input` is no embeddings input.
 */
export function embeddingsPromptHash(
  input: unknown,
  hash: (text: string) => string = (text) => bytesToHex(sha256(utf8ToBytes(text))),
): string | null {
  const inputs = embeddingInputsOf(input);
  return inputs === null ? null : hash(canonicalJson(inputs));
}

/**
 * A vector given as JSON numbers, as float32 values: each number (a binary64, as JSON.parse reads it) rounded to the
 * nearest binary32. Null when a value is not a finite number or rounds past the float32 range, or the list is empty.
 */
export function float32VectorOf(values: readonly unknown[]): Float32Array | null {
  if (values.length === 0) return null;
  const vector = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value !== "number") return null;
    const rounded = Math.fround(value);
    if (!Number.isFinite(rounded)) return null;
    vector[i] = rounded;
  }
  return vector;
}

/**
 * A vector given as OpenAI's base64 (`encoding_format: "base64"`): strict standard base64 of its float32 values, four
 * little-endian bytes each. Null for malformed base64, a length that is not a whole number of values, an empty
 * vector, or a NaN or infinite value.
 */
export function float32VectorFromBase64(text: string): Float32Array | null {
  const bytes = decodeBase64(text);
  if (bytes === null || bytes.length === 0 || bytes.length % 4 !== 0) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) {
    const value = view.getFloat32(i * 4, true);
    if (!Number.isFinite(value)) return null;
    vector[i] = value;
  }
  return vector;
}

/** A float32 vector as OpenAI's base64: its values as four little-endian bytes each, in standard base64. */
export function float32VectorToBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return encodeBase64(bytes);
}

/** One embedding as an answer carries it: JSON numbers, or base64 of little-endian float32. */
function vectorOf(embedding: unknown): Float32Array | null {
  if (typeof embedding === "string") return float32VectorFromBase64(embedding);
  return Array.isArray(embedding) ? float32VectorOf(embedding) : null;
}

/**
 * The vectors of an embeddings answer, as float32 values in input order. Accepted inputs: an embeddings response body
 * (`data` items with an `index` and an `embedding` of JSON numbers or base64, in any order, the indexes 0 to n-1 each
 * once); a list of vectors of JSON numbers (what the AI SDK's `embedMany` gives); one vector of JSON numbers (a
 * one-input answer, what `embed` gives). Null when none is found or any part is malformed.
 */
export function embeddingVectorsOf(response: unknown): Float32Array[] | null {
  if (Array.isArray(response)) {
    if (response.length > 0 && response.every((v) => typeof v === "number")) {
      const one = float32VectorOf(response);
      return one === null ? null : [one];
    }
    if (response.length === 0 || !response.every(Array.isArray)) return null;
    const vectors: Float32Array[] = [];
    for (const values of response as unknown[][]) {
      const vector = float32VectorOf(values);
      if (vector === null) return null;
      vectors.push(vector);
    }
    return vectors;
  }
  if (!isRecord(response) || !Array.isArray(response.data) || response.data.length === 0) return null;
  const data: unknown[] = response.data;
  const vectors = new Array<Float32Array | undefined>(data.length);
  for (const item of data) {
    if (!isRecord(item)) return null;
    const { index } = item;
    if (
      typeof index !== "number" ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= data.length ||
      vectors[index] !== undefined
    )
      return null;
    const vector = vectorOf(item.embedding);
    if (vector === null) return null;
    vectors[index] = vector;
  }
  return vectors as Float32Array[];
}

/**
 * The response hash of an embeddings call: SHA-256 (lower-case hex) of the canonical JSON of its vectors, a list of
 * lists of numbers in input order, each float32 value written as JSON.stringify writes that number (so -0 is `0`).
 * The same vectors give the same hash whichever encoding carried them. Throws for an empty list, an empty vector or a
 * value that is not a finite float32 (misuse: embeddingVectorsOf never returns one).
 */
export function embeddingsResponseHash(
  vectors: readonly Float32Array[],
  createHash: Sha256Incremental = nobleIncremental,
): string {
  if (vectors.length === 0) throw new TypeError("an embeddings answer holds at least one vector");
  const hasher = createHash();
  for (let i = 0; i < vectors.length; i++) {
    const vector = vectors[i]!;
    if (vector.length === 0) throw new TypeError(`vector ${i} is empty`);
    let text = i === 0 ? "[[" : ",[";
    for (let j = 0; j < vector.length; j++) {
      const value = vector[j]!;
      if (!Number.isFinite(value) || Math.fround(value) !== value)
        throw new TypeError(`vector ${i} value ${j} is not a finite float32`);
      text += (j === 0 ? "" : ",") + JSON.stringify(value);
    }
    hasher.update(utf8ToBytes(`${text}]`));
  }
  hasher.update(utf8ToBytes("]"));
  return bytesToHex(hasher.digest());
}
