// The embeddings route's request body: OpenAI's embeddings request (`POST /v1/embeddings`) plus `network`. `input` is a
// text, texts, token ids or lists of token ids, exactly OpenAI's four forms: each hashes unambiguously (the prompt hash
// covers them as a list, server/verify/embedding-hashes.ts), so none is refused. Limits keep a call's cost and memory
// bounded; they are part of the API (400 `invalid_request` naming the field, 413 `payload_too_large` past the body cap).
// Fields that mean nothing here (OpenRouter's `provider`, `input_type`) are ignored.
import "server-only";
import { z } from "zod";
import { MAX_CHAT_BODY_BYTES } from "./chat-request-schema";
import { findEmbeddingModel } from "../upstream/model-catalog";

/** Largest embeddings body accepted, bytes (413 `payload_too_large` past it): the chat route's limit. */
export const MAX_EMBEDDINGS_BODY_BYTES = MAX_CHAT_BODY_BYTES;
/** Most inputs in one call: OpenAI's own limit, and the batch the openai SDK and the AI SDK's embedMany send at most. */
export const MAX_EMBEDDING_INPUTS = 2048;
/** Longest text input, characters: a chat message's limit (about 8,000 tokens, OpenAI's limit per input). */
export const MAX_EMBEDDING_INPUT_CHARS = 32_000;
/**
 * Most characters of all text inputs together: about 50,000 tokens, well under OpenAI's 300,000 per request. An ASCII
 * batch meets it before the body cap, so it is named as `input` rather than refused whole with a 413.
 */
export const MAX_EMBEDDING_TOTAL_CHARS = 200_000;
/** Most ids in one token list: OpenAI's limit per input (8,192 tokens). */
export const MAX_EMBEDDING_INPUT_TOKENS = 8_192;
/** Most token ids of all inputs together: under the body cap (an id is up to 11 bytes of JSON with its comma). */
export const MAX_EMBEDDING_TOTAL_TOKENS = 20_000;
/** Largest token id: the largest a provider reads as a signed 32-bit integer; every tokenizer's vocabulary is far smaller. */
export const MAX_TOKEN_ID = 2_147_483_647;
/** Largest `dimensions`: past every catalogue model's vectors (each model's own limit is checked below). */
export const MAX_EMBEDDING_DIMENSIONS = 16_384;

/** OpenAI's clients send null for an absent optional parameter: both mean "not set". */
const unset = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** The request's fields, before the checks of `input` and of `dimensions` against the model. */
export const embeddingsRequestFields = z
  .object({
    model: z.string().min(1).max(128),
    /** Checked by checkEmbeddingInput below, so a bad input is named by its path and the limit it passes. */
    input: z.custom<string | string[] | number[] | number[][]>((v) => v !== undefined, { message: "is required" }),
    encoding_format: unset(z.enum(["float", "base64"])),
    dimensions: unset(z.number().int().positive().max(MAX_EMBEDDING_DIMENSIONS)),
    user: unset(z.string().max(256)),
    network: z.string().min(1).max(64).optional(),
  })
  .loose();

export const embeddingsRequestSchema = embeddingsRequestFields.superRefine((body, ctx) => {
  const problem = checkEmbeddingInput(body.input);
  if (problem) {
    ctx.addIssue({ code: "custom", message: problem.message, path: ["input", ...problem.path] });
    return;
  }
  const model = findEmbeddingModel(body.model);
  if (model && typeof body.dimensions === "number" && body.dimensions > model.maxDimensions) {
    ctx.addIssue({
      code: "custom",
      message: `must be at most ${model.maxDimensions} for ${model.id}`,
      path: ["dimensions"],
    });
  }
});

export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

const FORMS = "must be a string, an array of strings, an array of token ids, or an array of arrays of token ids";
const TOKEN_ID = `must be a token id: an integer from 0 to ${MAX_TOKEN_ID}`;

interface InputProblem {
  path: number[];
  message: string;
}

/** The first thing wrong with an `input`, with its path inside it, or null. The form is set by its first item. */
function checkEmbeddingInput(input: unknown): InputProblem | null {
  if (typeof input === "string") return checkText(input, []);
  if (!Array.isArray(input)) return { path: [], message: FORMS };
  if (input.length === 0) return { path: [], message: "must hold at least one input" };
  const first: unknown = input[0];
  if (typeof first === "number") return checkTokenList(input, []) ?? totalTokens(input.length);
  if (typeof first !== "string" && !Array.isArray(first)) return { path: [0], message: FORMS };
  if (input.length > MAX_EMBEDDING_INPUTS)
    return { path: [], message: `must hold at most ${MAX_EMBEDDING_INPUTS} inputs` };
  let total = 0;
  for (const [i, item] of input.entries()) {
    if (typeof first === "string") {
      if (typeof item !== "string")
        return { path: [i], message: "must be a string, as input.0 is (texts and token ids are not mixed)" };
      const problem = checkText(item, [i]);
      if (problem) return problem;
      total += item.length;
    } else {
      if (!Array.isArray(item))
        return {
          path: [i],
          message: "must be an array of token ids, as input.0 is (texts and token ids are not mixed)",
        };
      const problem = checkTokenList(item, [i]);
      if (problem) return problem;
      total += item.length;
    }
  }
  if (typeof first === "string")
    return total > MAX_EMBEDDING_TOTAL_CHARS
      ? { path: [], message: `must hold at most ${MAX_EMBEDDING_TOTAL_CHARS} characters in all` }
      : null;
  return totalTokens(total);
}

function checkText(text: string, path: number[]): InputProblem | null {
  if (text === "") return { path, message: "must not be an empty string" };
  if (text.length > MAX_EMBEDDING_INPUT_CHARS)
    return { path, message: `must be at most ${MAX_EMBEDDING_INPUT_CHARS} characters` };
  return null;
}

function checkTokenList(ids: readonly unknown[], path: number[]): InputProblem | null {
  if (ids.length === 0) return { path, message: "must hold at least one token id" };
  if (ids.length > MAX_EMBEDDING_INPUT_TOKENS)
    return { path, message: `must hold at most ${MAX_EMBEDDING_INPUT_TOKENS} token ids` };
  for (const [j, id] of ids.entries()) {
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id > MAX_TOKEN_ID)
      return { path: [...path, j], message: TOKEN_ID };
  }
  return null;
}

function totalTokens(total: number): InputProblem | null {
  return total > MAX_EMBEDDING_TOTAL_TOKENS
    ? { path: [], message: `must hold at most ${MAX_EMBEDDING_TOTAL_TOKENS} token ids in all` }
    : null;
}
