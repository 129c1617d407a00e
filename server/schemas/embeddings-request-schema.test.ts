import type { EmbeddingCreateParams } from "openai/resources/embeddings";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { parseWith } from "../http/parse-with";
import {
  embeddingsRequestSchema,
  MAX_EMBEDDING_DIMENSIONS,
  MAX_EMBEDDING_INPUT_CHARS,
  MAX_EMBEDDING_INPUT_TOKENS,
  MAX_EMBEDDING_INPUTS,
  MAX_EMBEDDING_TOTAL_CHARS,
  MAX_EMBEDDING_TOTAL_TOKENS,
  MAX_EMBEDDINGS_BODY_BYTES,
  MAX_TOKEN_ID,
} from "./embeddings-request-schema";

const MODEL = "openai/text-embedding-3-small";

function refusal(body: unknown): AppError {
  try {
    parseWith(embeddingsRequestSchema, body);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error("the schema accepted the body");
}

/** Every field of the openai SDK's EmbeddingCreateParams, and each form of its `input`. */
const sdkBodies: EmbeddingCreateParams[] = [
  { model: MODEL, input: "The food was delicious.", dimensions: 256, encoding_format: "float", user: "user-1" },
  { model: MODEL, input: ["a", "b"], encoding_format: "base64" },
  { model: MODEL, input: [791, 3691, 574] },
  { model: MODEL, input: [[791, 3691], [574]] },
];

describe("embeddingsRequestSchema", () => {
  it("accepts what the openai SDK sends (every field, every input form), the AI SDK's embedMany, nulls for unset fields, and ignored extras", () => {
    const bodies: unknown[] = [
      ...sdkBodies,
      // The AI SDK's openai-compatible provider: texts, always a list, encoding_format float, dimensions and user undefined.
      { model: "local/hash-embed-1", input: ["one value"], encoding_format: "float" },
      {
        model: MODEL,
        input: "hi",
        dimensions: null,
        encoding_format: null,
        user: null,
        network: "devnet",
        provider: { allow_fallbacks: false },
        input_type: "search_query",
      },
      { model: MODEL, input: Array.from({ length: MAX_EMBEDDING_INPUTS }, () => "x") },
      { model: MODEL, input: [0, MAX_TOKEN_ID] },
    ];
    for (const body of bodies)
      expect(() => parseWith(embeddingsRequestSchema, body), JSON.stringify(body).slice(0, 80)).not.toThrow();
  });

  it("keeps the input as sent (the provider gets it unchanged; the prompt hash reads it as a list)", () => {
    expect(parseWith(embeddingsRequestSchema, { model: MODEL, input: "hi" }).input).toBe("hi");
    expect(parseWith(embeddingsRequestSchema, { model: MODEL, input: [[1], [2, 3]] }).input).toEqual([[1], [2, 3]]);
  });

  it.each([
    ["input", "is required", { input: undefined }],
    ["input", "must be a string, an array of strings", { input: 7 }],
    ["input", "must be a string, an array of strings", { input: { text: "hi" } }],
    ["input", "must not be an empty string", { input: "" }],
    ["input", "must hold at least one input", { input: [] }],
    ["input.1", "must not be an empty string", { input: ["a", ""] }],
    ["input.0", "must be a string, an array of strings", { input: [null] }],
    ["input.1", "must be a string, as input.0 is", { input: ["a", 1] }],
    ["input.1", "must be an array of token ids, as input.0 is", { input: [[1], "a"] }],
    ["input.1", "must be a token id", { input: [1, "a"] }],
    ["input.1", "must be a token id", { input: [1, 1.5] }],
    ["input.0.1", "must be a token id", { input: [[1, -1]] }],
    ["input.0", "must be a token id", { input: [MAX_TOKEN_ID + 1] }],
    ["input.0", "must hold at least one token id", { input: [[]] }],
    [
      "input",
      `must hold at most ${MAX_EMBEDDING_INPUTS} inputs`,
      { input: Array.from({ length: MAX_EMBEDDING_INPUTS + 1 }, () => "x") },
    ],
    [
      "input",
      `must be at most ${MAX_EMBEDDING_INPUT_CHARS} characters`,
      { input: "x".repeat(MAX_EMBEDDING_INPUT_CHARS + 1) },
    ],
    [
      "input.1",
      `must be at most ${MAX_EMBEDDING_INPUT_CHARS} characters`,
      { input: ["x", "x".repeat(MAX_EMBEDDING_INPUT_CHARS + 1)] },
    ],
    [
      "input",
      `must hold at most ${MAX_EMBEDDING_TOTAL_CHARS} characters in all`,
      { input: Array.from({ length: 7 }, () => "x".repeat(30_000)) },
    ],
    [
      "input",
      `must hold at most ${MAX_EMBEDDING_INPUT_TOKENS} token ids`,
      { input: Array.from({ length: MAX_EMBEDDING_INPUT_TOKENS + 1 }, () => 1) },
    ],
    [
      "input",
      `must hold at most ${MAX_EMBEDDING_TOTAL_TOKENS} token ids in all`,
      { input: Array.from({ length: 3 }, () => Array.from({ length: 8_000 }, () => 1)) },
    ],
    ["model", "", { model: "" }],
    ["encoding_format", "", { encoding_format: "int8" }],
    ["dimensions", "", { dimensions: 0 }],
    ["dimensions", "", { dimensions: 1.5 }],
    ["dimensions", "", { model: "acme/none", dimensions: MAX_EMBEDDING_DIMENSIONS + 1 }],
    ["dimensions", "must be at most 1536 for openai/text-embedding-3-small", { dimensions: 3072 }],
    ["user", "", { user: "u".repeat(257) }],
  ])("rejects malformed input with invalid_request naming %s", (param, message, extra) => {
    const err = refusal({ model: MODEL, input: "hi", ...extra });
    expect(err).toMatchObject({ code: "invalid_request", status: 400, details: { detail: param } });
    expect(err.message).toContain(`${param}: ${message}`);
  });

  it("names a missing input, and a body that is not an object", () => {
    expect(refusal({ model: MODEL })).toMatchObject({ message: "input: is required", details: { detail: "input" } });
    expect(refusal(["hi"])).toMatchObject({ code: "invalid_request", details: { detail: "body" } });
  });

  it("leaves dimensions past an unknown model's vectors to the model gate, and checks the built-in model's own limit", () => {
    expect(() =>
      parseWith(embeddingsRequestSchema, { model: "acme/none", input: "hi", dimensions: 9_999 }),
    ).not.toThrow();
    expect(refusal({ model: "local/hash-embed-1", input: "hi", dimensions: 3_073 })).toMatchObject({
      details: { detail: "dimensions" },
    });
  });

  it("caps the body as the chat route does, above the input limits", () => {
    expect(MAX_EMBEDDINGS_BODY_BYTES).toBe(256_000);
    expect(MAX_EMBEDDING_TOTAL_CHARS).toBeLessThan(MAX_EMBEDDINGS_BODY_BYTES);
    expect(MAX_EMBEDDING_TOTAL_TOKENS * `${MAX_TOKEN_ID},`.length).toBeLessThan(MAX_EMBEDDINGS_BODY_BYTES);
  });
});
