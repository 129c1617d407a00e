// The prepaid route's body: OpenAI-shaped messages (or `prompt` shorthand), a nonce, a timestamp, an
// optional hard cost cap and network.
import "server-only";
import { z } from "zod";
import {
  chatMessageSchema,
  chatRequestFields,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGES,
  refuseUnreadableParts,
} from "./chat-request-schema";

/** Largest signed body accepted, bytes. */
export const MAX_INFERENCE_BODY_BYTES = 256_000;

export const inferenceRequestSchema = z
  .object({
    model: z.string().min(1).max(128),
    messages: z.array(chatMessageSchema).min(1).max(MAX_MESSAGES).optional(),
    prompt: z.string().min(1).max(MAX_MESSAGE_CHARS).optional(),
    nonce: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, { message: "must be 16 to 64 characters from [A-Za-z0-9_-]" }),
    timestamp: z.number().int().positive(),
    max_cost_usdc: z.number().positive().max(1_000).optional(),
    max_tokens: z.number().int().positive().max(1_000_000).optional(),
    network: z.string().min(1).max(64).optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    /** Tools, as on the paid route: passed to the provider as sent (the built-in model calls none). */
    tools: chatRequestFields.shape.tools,
    tool_choice: chatRequestFields.shape.tool_choice,
    parallel_tool_calls: chatRequestFields.shape.parallel_tool_calls,
    /** Server-Sent Events in the OpenAI format, ending with the signed receipt event. */
    stream: z.boolean().optional(),
    /** `include_usage`: a last chunk with `choices: []` and the usage, as OpenAI sends it; other options are ignored. */
    stream_options: z
      .object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
      .loose()
      .nullable()
      .optional(),
  })
  .strict()
  .refine((b) => (b.messages === undefined) !== (b.prompt === undefined), {
    message: "give exactly one of messages or prompt",
    path: ["messages"],
  })
  .superRefine((body, ctx) => refuseUnreadableParts(body, ctx));

export type InferenceRequest = z.infer<typeof inferenceRequestSchema>;
