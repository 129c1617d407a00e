// The chat route's request body: OpenAI chat-completion shape plus `network`. Limits keep a single
// paid call's cost and memory bounded; they are part of the API (400/413 with stable codes).
// Accepts every field of OpenAI's chat request (an SDK's answer message passed back as it came, content parts, tool
// calls, OpenRouter's `cache_control`), so a stock client works: a provider gets what it reads, what means nothing here
// is ignored, and only what cannot be served (n > 1, audio output, web search, moderation, a part the model cannot
// read) is a 400 naming the field and why.
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
const idSchema = z.string().min(1).max(256);
const nameSchema = z.string().min(1).max(64);

/** OpenRouter's and Anthropic's prompt-cache marker, on a content part or a tool; the provider reads it. */
const cacheControlSchema = z.object({ type: z.literal("ephemeral"), ttl: z.string().max(16).optional() }).strict();
/** OpenAI's explicit prompt-cache breakpoint on a content part; the provider reads it. */
const cacheBreakpointSchema = z
  .object({ mode: z.literal("explicit"), ttl: z.enum(["30m", "12h"]).optional() })
  .strict();
const cacheFields = {
  cache_control: cacheControlSchema.optional(),
  prompt_cache_breakpoint: cacheBreakpointSchema.optional(),
};

const contentPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: textSchema, ...cacheFields }).strict(),
  z
    .object({
      type: z.literal("image_url"),
      image_url: z.object({ url: blobSchema, detail: z.enum(["auto", "low", "high", "original"]).optional() }).strict(),
      ...cacheFields,
    })
    .strict(),
  z
    .object({
      type: z.literal("input_audio"),
      input_audio: z.object({ data: blobSchema, format: z.string().max(16) }).strict(),
      ...cacheFields,
    })
    .strict(),
  z
    .object({
      type: z.literal("file"),
      file: z
        .object({
          file_data: blobSchema.optional(),
          file_id: z.string().max(256).optional(),
          filename: z.string().max(256).optional(),
        })
        .strict(),
      ...cacheFields,
    })
    .strict(),
  /** An assistant's earlier refusal, passed back as the SDK returned it. */
  z.object({ type: z.literal("refusal"), refusal: textSchema }).strict(),
]);

const functionCallSchema = z.object({ name: nameSchema, arguments: textSchema }).strict();
/**
 * A tool call's function as the openai SDK's helpers (stream(), runTools(), parse()) return it: with their own
 * `parsed_arguments` (null, or the arguments parsed), an answer's field that the provider never gets.
 */
const toolFunctionSchema = functionCallSchema.extend({ parsed_arguments: z.unknown().optional() }).strict();
const toolCallSchema = z.discriminatedUnion("type", [
  z.object({ id: idSchema, type: z.literal("function"), function: toolFunctionSchema }).strict(),
  z
    .object({
      id: idSchema,
      type: z.literal("custom"),
      custom: z.object({ name: nameSchema, input: textSchema }).strict(),
    })
    .strict(),
]);

/** Any object, as a content part; each is checked against contentPartSchema below, so a bad one is named by its path. */
const partSlot = z.custom<ContentPart>((v) => typeof v === "object" && v !== null && !Array.isArray(v), {
  message: "must be a content part object",
});

export const chatMessageSchema = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
    /** Text or parts; null or absent only on an assistant message (one that calls tools) or a function message. */
    content: z
      .union([textSchema, z.array(partSlot).min(1).max(MAX_PARTS)])
      .nullable()
      .optional(),
    name: z.string().max(64).optional(),
    tool_calls: z.array(toolCallSchema).max(MAX_PARTS).optional(),
    tool_call_id: idSchema.optional(),
    function_call: functionCallSchema.nullable().optional(),
    refusal: textSchema.nullable().optional(),
    /** An earlier audio answer, referred to by its id (the SDK's message also carries its data and transcript). */
    audio: z.object({ id: idSchema }).loose().nullable().optional(),
    /** What the SDK's answer message carries (URL citations); an answer's field, so the provider never gets it. */
    annotations: z
      .array(z.object({ type: z.string().max(64) }).loose())
      .max(MAX_PARTS)
      .optional(),
    /**
     * What the openai SDK's helpers (stream(), runTools(), parse()) put on an answer message: its structured output
     * parsed (null without one); an answer's field, so the provider never gets it.
     */
    parsed: z.unknown().optional(),
  })
  .strict()
  .refine((m) => m.role === "assistant" || m.role === "function" || (m.content !== undefined && m.content !== null), {
    message: "is required for this role",
    path: ["content"],
  })
  .superRefine((m, ctx) => {
    if (!Array.isArray(m.content)) return;
    for (const [j, part] of m.content.entries()) {
      const checked = contentPartSchema.safeParse(part);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        ctx.addIssue({ code: "custom", message: issue.message, path: ["content", j, ...issue.path] });
        return;
      }
      if (checked.data.type === "refusal" && m.role !== "assistant") {
        ctx.addIssue({
          code: "custom",
          message: "a refusal part is an assistant's: only an assistant message may carry one",
          path: ["content", j, "type"],
        });
        return;
      }
    }
  });

const functionDefinitionSchema = z
  .object({
    name: nameSchema,
    description: z.string().max(4_096).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  })
  .strict();

const toolSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("function"),
      function: functionDefinitionSchema,
      cache_control: cacheControlSchema.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("custom"),
      custom: z
        .object({
          name: nameSchema,
          description: z.string().max(4_096).optional(),
          format: z
            .object({ type: z.enum(["text", "grammar"]) })
            .loose()
            .optional(),
        })
        .strict(),
      cache_control: cacheControlSchema.optional(),
    })
    .strict(),
]);

const toolChoiceSchema = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: nameSchema }).strict() }).strict(),
  z.object({ type: z.literal("custom"), custom: z.object({ name: nameSchema }).strict() }).strict(),
  z
    .object({
      type: z.literal("allowed_tools"),
      allowed_tools: z
        .object({
          mode: z.enum(["auto", "required"]),
          tools: z.array(z.record(z.string(), z.unknown())).max(MAX_PARTS),
        })
        .strict(),
    })
    .strict(),
]);

/** OpenAI's clients send null for an absent optional parameter: both mean "not set". */
const unset = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** The request's fields, before the checks that read several of them. */
export const chatRequestFields = z
  .object({
    model: z.string().min(1).max(128),
    messages: z
      .array(chatMessageSchema)
      .min(1, { message: "must hold at least one message" })
      .max(MAX_MESSAGES, { message: `must hold at most ${MAX_MESSAGES} messages` }),
    network: z.string().min(1).max(64).optional(),
    max_tokens: unset(z.number().int().positive().max(1_000_000)),
    max_completion_tokens: unset(z.number().int().positive().max(1_000_000)),
    temperature: unset(z.number().min(0).max(2)),
    top_p: unset(z.number().min(0).max(1)),
    stop: unset(z.union([z.string().max(256), z.array(z.string().max(256)).max(4)])),
    user: z.string().max(256).optional(),
    safety_identifier: unset(z.string().max(256)),
    tools: z.array(toolSchema).max(MAX_PARTS).optional(),
    tool_choice: toolChoiceSchema.optional(),
    parallel_tool_calls: z.boolean().optional(),
    /** The deprecated forerunners of tools and tool_choice. */
    functions: z.array(functionDefinitionSchema).max(MAX_PARTS).optional(),
    function_call: z.union([z.enum(["none", "auto"]), z.object({ name: nameSchema }).strict()]).optional(),
    response_format: z
      .discriminatedUnion("type", [
        z.object({ type: z.literal("text") }).strict(),
        z.object({ type: z.literal("json_object") }).strict(),
        z.object({ type: z.literal("json_schema"), json_schema: z.object({ name: nameSchema }).loose() }).strict(),
      ])
      .optional(),
    seed: unset(z.number().int()),
    /** One choice per call: the flat price buys one answer, and the receipt covers one. */
    n: unset(z.literal(1, { message: "must be 1: a call buys one answer, and its receipt covers one" })),
    presence_penalty: unset(z.number().min(-2).max(2)),
    frequency_penalty: unset(z.number().min(-2).max(2)),
    logit_bias: unset(z.record(z.string().regex(/^\d{1,10}$/), z.number().min(-100).max(100))),
    logprobs: unset(z.boolean()),
    top_logprobs: unset(z.number().int().min(0).max(20)),
    reasoning_effort: unset(z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"])),
    verbosity: unset(z.enum(["low", "medium", "high"])),
    prompt_cache_key: unset(z.string().max(256)),
    prompt_cache_retention: unset(z.enum(["in_memory", "24h"])),
    prompt_cache_options: z
      .object({ mode: z.enum(["implicit", "explicit"]).optional(), ttl: z.string().max(16).optional() })
      .strict()
      .optional(),
    /** Text is the only output: the answer, and what its receipt covers, is text. */
    modalities: unset(
      z
        .array(z.literal("text", { message: "must be text: answers are text only, and the receipt covers text" }))
        .max(2),
    ),
    audio: unset(z.null({ message: "is not served: answers are text only, and the receipt covers text" })),
    /** Search is priced per request by the provider, outside the call's fixed price. */
    web_search_options: unset(
      z.null({
        message: "is not served: web search is priced by the provider per request, outside the call's fixed price",
      }),
    ),
    /** No moderation pass runs here, so a request for one cannot be honoured. */
    moderation: unset(z.null({ message: "is not served: no moderation pass runs on this service" })),
    /** Ignored: a prediction only speeds an answer, and its rejected tokens would be billed outside the call's cap. */
    prediction: unset(
      z
        .object({
          type: z.literal("content"),
          content: z.union([
            textSchema,
            z.array(z.object({ type: z.literal("text"), text: textSchema }).loose()).max(MAX_PARTS),
          ]),
        })
        .strict(),
    ),
    /** Ignored: one tier is served, at the call's flat price. */
    service_tier: unset(z.enum(["auto", "default", "flex", "scale", "priority", "fast"])),
    /** Ignored: nothing is stored for the provider's own evaluations. */
    store: unset(z.boolean()),
    metadata: unset(z.record(z.string().max(64), z.string().max(512))),
    /** Server-Sent Events in the OpenAI format, ending with the signed receipt event. */
    stream: unset(z.boolean()),
    /** `include_usage`: a last chunk with `choices: []` and the usage, as OpenAI sends it; other options are ignored. */
    stream_options: unset(
      z.object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() }).loose(),
    ),
  })
  .loose();

export const chatRequestSchema = chatRequestFields.superRefine((body, ctx) => refuseUnreadableParts(body, ctx));

/** Refuses a content part the chosen model cannot read (an image to the built-in model), naming the part. */
export function refuseUnreadableParts(
  body: { model: string; messages?: readonly ChatMessage[] | undefined },
  ctx: z.RefinementCtx,
): void {
  const model = findModel(body.model);
  const path = model && body.messages ? unreadablePart(model, body.messages) : null;
  if (path)
    ctx.addIssue({
      code: "custom",
      message: `${body.model} reads text parts only`,
      path: path.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
    });
}

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** The optional OpenAI parameters passed to the provider as sent (the built-in model ignores them); a null is not sent. */
export const PASSED_PARAMS = [
  "temperature",
  "top_p",
  "stop",
  "user",
  "safety_identifier",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "functions",
  "function_call",
  "response_format",
  "seed",
  "n",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "reasoning_effort",
  "verbosity",
  "prompt_cache_key",
  "prompt_cache_retention",
  "prompt_cache_options",
] as const satisfies readonly (keyof ChatRequest)[];
