// The chat route's request body: OpenAI chat-completion shape plus `network`. Limits keep a single
// paid call's cost and memory bounded; they are part of the API (400/413 with stable codes).
// Accepts what OpenAI-compatible SDKs send (content parts, tool calls, the tool/function roles, the optional
// parameters), so a stock client works; what the chosen model cannot read is a 400 naming the field.
import "server-only";
import { z } from "zod";
import { unreadablePart, type ContentPart } from "../upstream/chat-message";
import { findModel } from "../upstream/model-catalog";

/** Largest chat body accepted, bytes (413 `payload_too_large` past it). */
export const MAX_CHAT_BODY_BYTES = 256_000;
/** Most messages in one call. */
export const MAX_MESSAGES = 128;
/** Longest single message content, characters. */
export const MAX_MESSAGE_CHARS = 32_000;
/** Most content parts in one message, and most tools or tool calls in one call. */
export const MAX_PARTS = 64;

const textSchema = z.string().max(MAX_MESSAGE_CHARS, { message: `must be at most ${MAX_MESSAGE_CHARS} characters` });
/** A part's URL or data: bounded by the body limit (an image may be a data: URL). */
const blobSchema = z.string().max(MAX_CHAT_BODY_BYTES);

const contentPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: textSchema }).strict(),
  z.object({ type: z.literal("image_url"), image_url: z.object({ url: blobSchema, detail: z.enum(["auto", "low", "high"]).optional() }).strict() }).strict(),
  z.object({ type: z.literal("input_audio"), input_audio: z.object({ data: blobSchema, format: z.string().max(16) }).strict() }).strict(),
  z.object({ type: z.literal("file"), file: z.object({ file_data: blobSchema.optional(), file_id: z.string().max(256).optional(), filename: z.string().max(256).optional() }).strict() }).strict(),
]);

const functionCallSchema = z.object({ name: z.string().min(1).max(64), arguments: textSchema }).strict();
const toolCallSchema = z.object({ id: z.string().min(1).max(256), type: z.literal("function"), function: functionCallSchema }).strict();

/** Any object, as a content part; each is checked against contentPartSchema below, so a bad one is named by its path. */
const partSlot = z.custom<ContentPart>((v) => typeof v === "object" && v !== null && !Array.isArray(v), { message: "must be a content part object" });

export const chatMessageSchema = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
    /** Text or parts; null or absent only on an assistant message (one that calls tools). */
    content: z.union([textSchema, z.array(partSlot).min(1).max(MAX_PARTS)]).nullable().optional(),
    name: z.string().max(64).optional(),
    tool_calls: z.array(toolCallSchema).max(MAX_PARTS).optional(),
    tool_call_id: z.string().min(1).max(256).optional(),
    function_call: functionCallSchema.optional(),
    refusal: textSchema.nullable().optional(),
  })
  .strict()
  .refine((m) => m.role === "assistant" || (m.content !== undefined && m.content !== null), { message: "is required for this role", path: ["content"] })
  .superRefine((m, ctx) => {
    if (!Array.isArray(m.content)) return;
    for (const [j, part] of m.content.entries()) {
      const checked = contentPartSchema.safeParse(part);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        ctx.addIssue({ code: "custom", message: issue.message, path: ["content", j, ...issue.path] });
        return;
      }
    }
  });

const toolSchema = z
  .object({
    type: z.literal("function"),
    function: z
      .object({ name: z.string().min(1).max(64), description: z.string().max(4_096).optional(), parameters: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullable().optional() })
      .strict(),
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
    tools: z.array(toolSchema).max(MAX_PARTS).optional(),
    tool_choice: z
      .union([z.enum(["none", "auto", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1).max(64) }).strict() }).strict()])
      .optional(),
    response_format: z
      .discriminatedUnion("type", [
        z.object({ type: z.literal("text") }).strict(),
        z.object({ type: z.literal("json_object") }).strict(),
        z.object({ type: z.literal("json_schema"), json_schema: z.object({ name: z.string().min(1).max(64) }).loose() }).strict(),
      ])
      .optional(),
    seed: z.number().int().optional(),
    /** One choice per call: the flat price buys one answer, and the receipt covers one. */
    n: z.literal(1, { message: "must be 1 (one answer per call)" }).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    logit_bias: z.record(z.string().regex(/^\d{1,10}$/), z.number().min(-100).max(100)).optional(),
    logprobs: z.boolean().optional(),
    top_logprobs: z.number().int().min(0).max(20).optional(),
    /** Server-Sent Events in the OpenAI format, ending with the signed receipt event. */
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().optional(),
  })
  .loose()
  .superRefine((body, ctx) => refuseUnreadableParts(body, ctx));

/** Refuses a content part the chosen model cannot read (an image to the built-in model), naming the part. */
export function refuseUnreadableParts(body: { model: string; messages?: readonly ChatMessage[] | undefined }, ctx: z.RefinementCtx): void {
  const model = findModel(body.model);
  const path = model && body.messages ? unreadablePart(model, body.messages) : null;
  if (path) ctx.addIssue({ code: "custom", message: `${body.model} reads text parts only`, path: path.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p)) });
}

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** The optional OpenAI parameters passed to the provider as sent (the built-in model ignores them). */
export const PASSED_PARAMS = [
  "temperature",
  "top_p",
  "stop",
  "user",
  "tools",
  "tool_choice",
  "response_format",
  "seed",
  "n",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
] as const satisfies readonly (keyof ChatRequest)[];
