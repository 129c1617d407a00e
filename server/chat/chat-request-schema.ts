// The chat route's request body: OpenAI chat-completion shape plus `network`. Limits keep a single
// paid call's cost and memory bounded; they are part of the API (400/413 with stable codes).
import "server-only";
import { z } from "zod";

/** Largest chat body accepted, bytes (413 `payload_too_large` past it). */
export const MAX_CHAT_BODY_BYTES = 256_000;
/** Most messages in one call. */
export const MAX_MESSAGES = 128;
/** Longest single message content, characters. */
export const MAX_MESSAGE_CHARS = 32_000;

export const chatMessageSchema = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.string().max(MAX_MESSAGE_CHARS, { message: `must be at most ${MAX_MESSAGE_CHARS} characters` }),
    name: z.string().max(64).optional(),
  })
  .strict();

export const chatRequestSchema = z
  .object({
    model: z.string().min(1).max(128),
    messages: z
      .array(chatMessageSchema)
      .min(1, { message: "must hold at least one message" })
      .max(MAX_MESSAGES, { message: `must hold at most ${MAX_MESSAGES} messages` }),
    network: z.string().min(1).max(64).optional(),
    max_tokens: z.number().int().positive().max(1_000_000).optional(),
    max_completion_tokens: z.number().int().positive().max(1_000_000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    stop: z.union([z.string().max(256), z.array(z.string().max(256)).max(4)]).optional(),
    user: z.string().max(256).optional(),
    /** Server-Sent Events in the OpenAI format, ending with the signed receipt event. */
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().optional(),
  })
  .loose();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
