// The embeddings route's answer: OpenAI's embeddings response exactly (`object: "list"`, one `embedding` item per input
// in input order, `model`, `usage`), each vector written as JSON numbers (`encoding_format: "float"`, the default) or as
// OpenAI's base64 of little-endian float32. Both write the same float32 values, so both have one response hash.
import "server-only";
import { z } from "zod";
import { float32VectorToBase64 } from "../verify";

/** OpenAI's embeddings response (`CreateEmbeddingResponse`; `embedding` a base64 string when asked for base64). */
export const embeddingsResponseSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(
      z
        .object({
          object: z.literal("embedding"),
          index: z.number().int().min(0),
          embedding: z.union([z.array(z.number()), z.string()]),
        })
        .strict(),
    ),
    model: z.string(),
    usage: z.object({ prompt_tokens: z.number().int().min(0), total_tokens: z.number().int().min(0) }).strict(),
  })
  .strict();

export type EmbeddingsResponseBody = z.infer<typeof embeddingsResponseSchema>;

/** What an answer is made from: the facade's Embeddings (upstream/embed-inputs.ts) has these fields. */
export interface EmbeddingsAnswer {
  model: string;
  vectors: readonly Float32Array[];
  usage: { prompt_tokens: number; total_tokens: number };
}

/**
 * Significant digits tried first: a float32 needs at most 9, and a normal one needing fewer is found padded at 6 (a
 * subnormal, which holds fewer digits, is written with 6: longer than it needs, and still read back exactly).
 */
const FIRST_DIGITS = 6;
const MOST_DIGITS = 9;

/**
 * The number to write for a float32 value: the shortest decimal (from 6 significant digits) that reads back as it,
 * read as a binary64 and rounded to float32 (as the verifier reads it), so the float answer is about half the size of
 * one written with every binary64 digit. OpenAI writes its float answers the same way.
 */
export function float32Json(value: number): number {
  for (let digits = FIRST_DIGITS; digits <= MOST_DIGITS; digits++) {
    const short = Number(value.toPrecision(digits));
    if (Math.fround(short) === value) return short;
  }
  return value;
}

/** The response body for an answer, in the encoding the request asked for (float when it asked for none). */
export function embeddingsResponseBody(
  answer: EmbeddingsAnswer,
  encodingFormat: "float" | "base64" = "float",
): EmbeddingsResponseBody {
  return {
    object: "list",
    data: answer.vectors.map((vector, index) => ({
      object: "embedding" as const,
      index,
      embedding: encodingFormat === "base64" ? float32VectorToBase64(vector) : Array.from(vector, float32Json),
    })),
    model: answer.model,
    usage: { prompt_tokens: answer.usage.prompt_tokens, total_tokens: answer.usage.total_tokens },
  };
}
