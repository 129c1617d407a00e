// OpenAI-compatible bodies: the request shapes real SDKs send (content parts, the developer/tool/function roles, tool
// calls, and the optional parameters) are served through the paid route with a stock paying client and reach the
// provider as sent; what the chosen model cannot read is a 400 naming the field; the receipt's prompt hash covers the
// messages exactly as sent.
import { completionAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptHashOfMessages } from "../../verify";
import { CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";

let provider: FakeProvider;
const received: Record<string, unknown>[] = [];
let stack: PaidStack;

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) => {
    received.push(body);
    return completionAnswer(body.model, "sunny", { prompt_tokens: 40, completion_tokens: 1 });
  });
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "test-key",
      UPSTREAM_BASE_URL: provider.url,
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});

const tool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};
const toolCall = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } };
/** One message of each shape an SDK sends. */
const messages = [
  { role: "developer", content: "Answer briefly." },
  { role: "system", content: [{ type: "text", text: "You are a weather bot." }] },
  {
    role: "user",
    name: "ada",
    content: [
      { type: "text", text: "Weather in Oslo?" },
      { type: "text", text: "Celsius, please." },
    ],
  },
  { role: "assistant", content: null, tool_calls: [toolCall] },
  { role: "tool", tool_call_id: "call_1", content: '{"temp":12}' },
  { role: "function", name: "get_weather", content: '{"temp":12}' },
  { role: "assistant", content: [{ type: "text", text: "12 °C." }], refusal: null },
  { role: "user", content: "And tomorrow?" },
];
const params = {
  tools: [tool],
  tool_choice: { type: "function", function: { name: "get_weather" } },
  response_format: { type: "json_object" },
  seed: 7,
  user: "user-123",
  n: 1,
  presence_penalty: 0.5,
  frequency_penalty: -0.5,
  logit_bias: { "50256": -100 },
  logprobs: true,
  top_logprobs: 2,
  stop: ["\n\n"],
};

async function pay(body: unknown): Promise<Response> {
  const agent = await stack.newAgent();
  return stack.payingFetch(agent)(CHAT_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("OpenAI-compatible request bodies on the paid route", () => {
  it("serves content parts, every role, tool calls and the optional parameters, passing them to the provider as sent", async () => {
    const res = await pay({ model: "openai/gpt-4o-mini", messages, ...params });
    expect(res.status).toBe(200);
    const sent = received.at(-1)!;
    expect(sent.messages).toEqual(messages);
    expect(sent).toMatchObject(params);
  });

  it("signs a receipt whose prompt hash verifies over the messages as sent", async () => {
    const res = await pay({ model: "openai/gpt-4o-mini", messages, ...params });
    expect(res.status).toBe(200);
    const receipt = JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString()) as {
      prompt_hash: string;
    };
    expect(receipt.prompt_hash).toBe(promptHashOfMessages(messages));
  });

  it("serves text parts to the built-in model, which reads their text", async () => {
    const res = await pay({
      model: "local/echo-1",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "parts" },
            { type: "text", text: "joined" },
          ],
        },
      ],
      seed: 1,
      n: 1,
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(out.choices[0]!.message.content).toContain("parts\njoined");
  });

  it("refuses an image part to the built-in model with 400 naming the field, before any payment", async () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } };
    const res = await stack.chat({
      body: {
        model: "local/echo-1",
        messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, image] }],
      },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: "invalid_request", detail: "messages.0.content.1", param: "messages.0.content.1" },
    });
  });

  it.each([
    ["n above 1", { n: 2 }, "n"],
    ["a presence penalty out of range", { presence_penalty: 3 }, "presence_penalty"],
    [
      "an unknown content part",
      { messages: [{ role: "user", content: [{ type: "video", video: {} }] }] },
      "messages.0.content.0",
    ],
  ])("refuses %s with 400 naming the field", async (_label, patch, field) => {
    const res = await stack.chat({
      body: { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...patch },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: "invalid_request", detail: expect.stringContaining(field), param: expect.stringContaining(field) },
    });
  });
});
