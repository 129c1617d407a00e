import { describe, expect, it } from "vitest";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { AppError } from "../errors";
import { parseWith } from "../http/parse-with";
import { chatRequestSchema, MAX_MESSAGES, MAX_PARTS, PASSED_PARAMS } from "./chat-request-schema";

const PROVIDER_MODEL = "openai/gpt-4o-mini";
const LOCAL_MODEL = "local/echo-1";
const user = { role: "user", content: "hi" } as const;

function refusal(body: unknown): AppError {
  try {
    parseWith(chatRequestSchema, body);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error("the schema accepted the body");
}

/** An assistant message exactly as the openai SDK types an answer's message. */
const answered: ChatCompletionMessage = {
  role: "assistant",
  content: null,
  refusal: null,
  annotations: [],
  audio: null,
  tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
};

/** Every request field of the openai SDK's ChatCompletionCreateParams, each as a client would set it. */
const everyParam = {
  model: PROVIDER_MODEL,
  messages: [user],
  audio: null,
  frequency_penalty: 0.5,
  function_call: "auto",
  functions: [{ name: "get_weather", description: "Weather", parameters: { type: "object" } }],
  logit_bias: { "50256": -100 },
  logprobs: true,
  max_completion_tokens: 64,
  max_tokens: 64,
  metadata: { team: "a" },
  modalities: ["text"],
  moderation: null,
  n: 1,
  parallel_tool_calls: false,
  prediction: { type: "content", content: "maybe this" },
  presence_penalty: -0.5,
  prompt_cache_key: "k1",
  prompt_cache_options: { mode: "explicit", ttl: "30m" },
  prompt_cache_retention: "24h",
  reasoning_effort: "low",
  response_format: { type: "json_schema", json_schema: { name: "w", schema: { type: "object" }, strict: true } },
  safety_identifier: "hashed-user",
  seed: 7,
  service_tier: "auto",
  stop: ["\n\n"],
  store: false,
  stream: false,
  stream_options: null,
  temperature: 0.2,
  tool_choice: {
    type: "allowed_tools",
    allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "get_weather" } }] },
  },
  tools: [
    { type: "function", function: { name: "get_weather", parameters: { type: "object" }, strict: true } },
    { type: "custom", custom: { name: "sql", description: "Runs SQL", format: { type: "text" } } },
  ],
  top_logprobs: 2,
  top_p: 0.9,
  user: "user-123",
  verbosity: "low",
} satisfies ChatCompletionCreateParamsNonStreaming;

describe("chatRequestSchema", () => {
  it("accepts every field of OpenAI's chat request", () => {
    expect(parseWith(chatRequestSchema, everyParam)).toEqual(everyParam);
  });

  it("accepts OpenRouter's cache_control on a tool, and an absent web search", () => {
    const tools = [{ type: "function", function: { name: "get_weather" }, cache_control: { type: "ephemeral" } }];
    expect(
      chatRequestSchema.safeParse({ model: PROVIDER_MODEL, messages: [user], tools, web_search_options: null }).success,
    ).toBe(true);
  });

  it("accepts null for every optional parameter the SDK types as nullable", () => {
    const nulls = Object.fromEntries(
      [
        "max_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "stop",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "reasoning_effort",
        "verbosity",
        "modalities",
        "service_tier",
        "store",
        "metadata",
        "stream",
        "prediction",
      ].map((k) => [k, null]),
    );
    expect(chatRequestSchema.safeParse({ model: PROVIDER_MODEL, messages: [user], ...nulls }).success).toBe(true);
  });

  it.each<[string, ChatCompletionMessageParam | Record<string, unknown>]>([
    ["an answer's message passed back as the SDK returned it", answered],
    [
      "an answer's message with an audio reference and citations",
      {
        ...answered,
        audio: { id: "audio_1", data: "UklGRg==", expires_at: 1, transcript: "hi" },
        annotations: [
          { type: "url_citation", url_citation: { url: "https://x", title: "x", start_index: 0, end_index: 1 } },
        ],
      },
    ],
    [
      "an assistant refusal part, and a refusal",
      { role: "assistant", content: [{ type: "refusal", refusal: "I can't." }], refusal: "I can't." },
    ],
    [
      "a custom tool call",
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "custom", custom: { name: "sql", input: "select 1" } }],
      },
    ],
    ["a null function_call", { role: "assistant", content: "ok", function_call: null }],
    ["a function message with null content", { role: "function", name: "get_weather", content: null }],
    ["a name on a system message", { role: "system", name: "policy", content: "be brief" }],
    [
      "cache_control on a text part",
      {
        role: "user",
        content: [{ type: "text", text: "long context", cache_control: { type: "ephemeral", ttl: "1h" } }],
      },
    ],
    [
      "prompt_cache_breakpoint on a text part",
      {
        role: "user",
        content: [{ type: "text", text: "long context", prompt_cache_breakpoint: { mode: "explicit" } }],
      },
    ],
  ])("accepts %s", (_label, message) => {
    expect(chatRequestSchema.safeParse({ model: PROVIDER_MODEL, messages: [user, message, user] }).success).toBe(true);
  });

  it("lets the built-in model read an assistant's refusal part (it is text)", () => {
    const body = {
      model: LOCAL_MODEL,
      messages: [user, { role: "assistant", content: [{ type: "refusal", refusal: "no" }] }, user],
    };
    expect(chatRequestSchema.safeParse(body).success).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ["n above 1", { n: 2 }, "n", /one answer/],
    ["audio output", { audio: { voice: "alloy", format: "mp3" } }, "audio", /answers are text only/],
    ["the audio modality", { modalities: ["text", "audio"] }, "modalities.1", /answers are text only/],
    [
      "web search",
      { web_search_options: { search_context_size: "low" } },
      "web_search_options",
      /priced by the provider per request/,
    ],
    ["moderation", { moderation: { model: "omni-moderation-latest" } }, "moderation", /no moderation/],
    [
      "a refusal part outside an assistant message",
      { messages: [{ role: "user", content: [{ type: "refusal", refusal: "x" }] }] },
      "messages.0.content.0.type",
      /assistant/,
    ],
    [
      "a malformed cache_control",
      { messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "forever" } }] }] },
      "messages.0.content.0.cache_control.type",
      /ephemeral/,
    ],
    [
      "an unknown field on a message",
      { messages: [{ role: "user", content: "x", mood: "happy" }] },
      "messages.0",
      /mood/,
    ],
    [
      "an image part to the built-in model",
      {
        model: LOCAL_MODEL,
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }],
      },
      "messages.0.content.0",
      /text parts only/,
    ],
    ["too many messages", { messages: Array.from({ length: MAX_MESSAGES + 1 }, () => user) }, "messages", /at most/],
    [
      "too many tools",
      { tools: Array.from({ length: MAX_PARTS + 1 }, () => ({ type: "function", function: { name: "f" } })) },
      "tools",
      /64/,
    ],
    ["a temperature out of range", { temperature: 3 }, "temperature", /2/],
  ])("refuses %s with invalid_request naming the field and why", (_label, patch, field, why) => {
    const err = refusal({ model: PROVIDER_MODEL, messages: [user], ...patch });
    expect(err.code).toBe("invalid_request");
    expect(err.details).toEqual({ detail: field });
    expect(err.message).toMatch(new RegExp(`^${field.replace(/\./g, "\\.")}: `));
    expect(err.message).toMatch(why);
  });

  it("rejects malformed input", () => {
    for (const body of [
      null,
      "hi",
      [],
      {},
      { model: PROVIDER_MODEL },
      { model: PROVIDER_MODEL, messages: [] },
      { model: PROVIDER_MODEL, messages: [{ role: "robot", content: "x" }] },
    ]) {
      expect(refusal(body).code).toBe("invalid_request");
    }
  });

  it("passes to the provider only parameters the request schema defines", () => {
    const fields = Object.keys(chatRequestSchema.shape);
    for (const key of PASSED_PARAMS) expect(fields).toContain(key);
    for (const ignored of ["store", "metadata", "service_tier", "prediction", "stream_options"])
      expect(PASSED_PARAMS).not.toContain(ignored);
  });
});
