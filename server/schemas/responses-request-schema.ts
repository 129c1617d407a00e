// The responses route's request body: OpenAI's Responses API request (`POST /v1/responses`) plus `network`, served as
// one stateless call. The input (messages, earlier function calls and their outputs) maps onto chat messages
// (server/verify/responses-prompt.ts) and function tools onto chat's tools; what needs state kept between calls
// (`store: true`, `previous_response_id`, `conversation`, `background`), hosted tools, `include` and non-text input
// are a 400 naming the field. Fields that mean nothing here (metadata, user, …) are ignored.
import "server-only";
import { z } from "zod";
import { MAX_CHAT_BODY_BYTES, MAX_MESSAGE_CHARS, MAX_MESSAGES, MAX_PARTS } from "./chat-request-schema";

/** Largest responses body accepted, bytes (413 `payload_too_large` past it): the chat route's limit. */
export const MAX_RESPONSES_BODY_BYTES = MAX_CHAT_BODY_BYTES;

const textSchema = z.string().max(MAX_MESSAGE_CHARS, { message: `must be at most ${MAX_MESSAGE_CHARS} characters` });

/** What a stateless call cannot honour: no response, conversation or background job is kept after the answer. */
const NO_STATE = "is not served: no response state is kept; send the whole conversation in input";

/** A text part: the caller's, or an earlier answer's passed back. */
const textPartSchema = z
  .object({
    type: z.enum(["input_text", "output_text"]),
    text: textSchema,
    annotations: z.array(z.unknown()).max(MAX_PARTS).optional(),
  })
  .loose();

/** Any part object, checked below so a non-text part is named by its path. */
const partSlot = z.custom<z.infer<typeof textPartSchema>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  { message: "must be a content part object" },
);

const messageItemSchema = z
  .object({
    type: z
      .literal("message", {
        message: "is not served: only message, function_call and function_call_output items are read",
      })
      .optional(),
    role: z.enum(["system", "developer", "user", "assistant"]),
    content: z.union([textSchema, z.array(partSlot).min(1).max(MAX_PARTS)]),
    /** An earlier answer's item id and status, passed back as the SDK returned them; not read. */
    id: z.string().max(256).optional(),
    status: z.string().max(32).optional(),
  })
  .strict()
  .superRefine((item, ctx) => {
    if (!Array.isArray(item.content)) return;
    for (const [j, part] of item.content.entries()) {
      const type = (part as { type?: unknown }).type;
      if (type !== "input_text" && type !== "output_text") {
        ctx.addIssue({
          code: "custom",
          message: "is not served: only input_text and output_text parts are read (answers and receipts cover text)",
          path: ["content", j, "type"],
        });
        return;
      }
      const checked = textPartSchema.safeParse(part);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        ctx.addIssue({ code: "custom", message: issue.message, path: ["content", j, ...issue.path] });
        return;
      }
    }
  });

/** An earlier answer's function call, passed back in the conversation (its `id` and `status` are not read). */
const functionCallItemSchema = z
  .object({
    type: z.literal("function_call"),
    call_id: z.string().min(1).max(256),
    name: z.string().min(1).max(64),
    arguments: textSchema,
    id: z.string().max(256).optional(),
    status: z.string().max(32).optional(),
  })
  .strict();

/** A function call's result, as the caller's tool produced it: text (the receipt's prompt hash covers it). */
const functionCallOutputItemSchema = z
  .object({
    type: z.literal("function_call_output"),
    call_id: z.string().min(1).max(256),
    output: z.string({ message: "must be a string: a tool's result is read as text" }).max(MAX_MESSAGE_CHARS),
    id: z.string().max(256).optional(),
    status: z.string().max(32).optional(),
  })
  .strict();

/** A reference to an item of a stored response: none is stored, so the item itself must be sent. */
const itemReferenceSchema = z
  .object({
    type: z.never({
      message:
        "is not served: no response state is kept, so an item reference cannot be resolved; send the item itself (the AI SDK's Responses model does with providerOptions.openai.store: false)",
    }),
  })
  .loose();

/** The schema an input item is checked with, by its `type`: a message (the default), a function call or its output. */
function itemSchemaOf(item: unknown): z.ZodType {
  const type = (item as { type?: unknown }).type;
  if (type === "function_call") return functionCallItemSchema;
  if (type === "function_call_output") return functionCallOutputItemSchema;
  if (type === "item_reference") return itemReferenceSchema;
  return messageItemSchema;
}

/** A function tool, as the Responses API declares one; it becomes chat's `{ type: "function", function }`. */
const functionToolSchema = z
  .object({
    type: z.literal("function", { message: "is not served: only function tools are (no hosted tools)" }),
    name: z.string().min(1).max(64),
    description: z.string().max(4_096).nullable().optional(),
    parameters: z.record(z.string(), z.unknown()).nullable().optional(),
    strict: z.boolean().nullable().optional(),
  })
  .strict();

/** Any item object, checked as a message below so a non-message item is named by its path. */
const itemSlot = z.custom<z.infer<typeof messageItemSchema>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  { message: "must be an input item object" },
);

/** OpenAI's clients send null for an absent optional parameter: both mean "not set". */
const unset = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** The request's fields, before the check that reads each input item. */
export const responsesRequestFields = z
  .object({
    model: z.string().min(1).max(128),
    input: z.union([
      textSchema,
      z
        .array(itemSlot)
        .min(1, { message: "must hold at least one item" })
        .max(MAX_MESSAGES, { message: `must hold at most ${MAX_MESSAGES} items` }),
    ]),
    /** A system message before the input. */
    instructions: unset(textSchema),
    network: z.string().min(1).max(64).optional(),
    max_output_tokens: unset(z.number().int().positive().max(1_000_000)),
    temperature: unset(z.number().min(0).max(2)),
    top_p: unset(z.number().min(0).max(1)),
    stream: unset(z.boolean()),
    /** Ignored: nothing is stored, and no provider sees them. */
    metadata: unset(z.record(z.string().max(64), z.string().max(512))),
    user: unset(z.string().max(256)),
    store: unset(
      z.literal(false, { message: "must be false: no response state is kept, so nothing can be stored or retrieved" }),
    ),
    previous_response_id: unset(z.never({ message: NO_STATE })),
    conversation: unset(z.never({ message: NO_STATE })),
    background: unset(
      z.literal(false, {
        message: "must be false: a call is answered while its request waits (no background jobs are kept)",
      }),
    ),
    /** Function tools, passed to the model as chat's tools; its calls come back as `function_call` output items. */
    tools: z.array(functionToolSchema).max(MAX_PARTS).optional(),
    tool_choice: unset(
      z.union([
        z.enum(["none", "auto", "required"]),
        z.object({ type: z.literal("function"), name: z.string().min(1).max(64) }).strict(),
      ]),
    ),
    parallel_tool_calls: unset(z.boolean()),
    include: unset(
      z.array(z.unknown()).max(0, { message: "is not served: an answer carries its text and usage only" }),
    ),
    /** The answer's format: text, or JSON (passed to the provider as chat's `response_format`); verbosity is ignored. */
    text: unset(
      z
        .object({
          format: z
            .discriminatedUnion("type", [
              z.object({ type: z.literal("text") }).strict(),
              z.object({ type: z.literal("json_object") }).strict(),
              z
                .object({
                  type: z.literal("json_schema"),
                  name: z.string().min(1).max(64),
                  schema: z.record(z.string(), z.unknown()),
                  description: z.string().max(4_096).optional(),
                  strict: z.boolean().nullable().optional(),
                })
                .strict(),
            ])
            .optional(),
          verbosity: unset(z.enum(["low", "medium", "high"])),
        })
        .strict(),
    ),
  })
  .loose();

export const responsesRequestSchema = responsesRequestFields.superRefine((body, ctx) => {
  if (!Array.isArray(body.input)) return;
  for (const [i, item] of body.input.entries()) {
    const checked = itemSchemaOf(item).safeParse(item);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      ctx.addIssue({ code: "custom", message: issue.message, path: ["input", i, ...issue.path] });
      return;
    }
  }
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
