// The official `openai` SDK, unchanged, over real HTTP with the stock x402 paying fetch: what it sends and what it reads
// back. A tool round trip passes the SDK's own answer message back as it came (refusal, annotations, audio); a
// cache_control part is served; n: 2 is a 400 naming n; an include_usage stream ends with the SDK's usage chunk
// (choices []) and still verifies; a plain answer carries logprobs and refusal as null.
import OpenAI, { BadRequestError } from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { x402Client } from "@x402/core/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { operatorKeypair } from "../support/env";
import { verifyReceipt } from "../../verify";
import { completionAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { startHttpService, type HttpService } from "../support/http-service";
import { startPaidStack, type PaidStack } from "../support/paid-stack";

const PROVIDER_MODEL = "openai/gpt-4o-mini";
const toolCall = {
  id: "call_1",
  type: "function" as const,
  function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
};
const tools = [
  {
    type: "function" as const,
    function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];

let provider: FakeProvider;
const received: { messages: unknown[]; [key: string]: unknown }[] = [];
let stack: PaidStack;
let service: HttpService;

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) => {
    received.push(body as unknown as (typeof received)[number]);
    const messages = body.messages as { role: string }[];
    // The first turn asks for the tool; once the tool has answered, the model answers in text.
    if (body.tools && messages.at(-1)?.role === "user") {
      return {
        status: 200,
        json: {
          id: "gen-tool",
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: null, refusal: null, tool_calls: [toolCall] },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 },
        },
      };
    }
    return completionAnswer(body.model, "12 °C in Oslo.", { prompt_tokens: 40, completion_tokens: 5 });
  });
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "test-key",
      UPSTREAM_BASE_URL: provider.url,
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      LOCAL_MODEL_STREAM_DELAY_MS: "0",
    },
  });
  service = await startHttpService();
});
afterAll(async () => {
  await service?.close();
  await stack?.close();
  await provider?.close();
});

/** A fresh paying agent's SDK client, as the README sets it up. */
async function sdk(): Promise<OpenAI> {
  const agent = await stack.newAgent();
  const client = new x402Client();
  client.register("solana:*", new ExactSvmScheme(agent, { rpcUrl: stack.devnet.url }));
  return new OpenAI({
    baseURL: `${service.url}/api/v1`,
    apiKey: "unused: x402 pays per call",
    fetch: wrapFetchWithPayment(fetch, client),
    maxRetries: 0,
  });
}

const operatorKey = () => operatorKeypair().publicKeyBase58;

describe("the openai SDK's own shapes, sent and read back", () => {
  it("a tool round trip: the SDK's answer message, passed back unchanged, is served and reaches the provider without the answer-only fields", async () => {
    const openai = await sdk();
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Oslo?" }];
    const first = await openai.chat.completions.create({ model: PROVIDER_MODEL, messages, tools });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls).toEqual([toolCall]);
    expect(choice.message.refusal).toBeNull();
    expect(choice.message.annotations).toEqual([]);
    // The message exactly as the SDK returned it, with an audio field as its type has it.
    const answered = { ...choice.message, audio: null };
    const second = await openai.chat.completions.create({
      model: PROVIDER_MODEL,
      messages: [...messages, answered, { role: "tool", tool_call_id: "call_1", content: '{"temp":12}' }],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe("12 °C in Oslo.");
    const sent = received.at(-1)!.messages[1] as Record<string, unknown>;
    expect(sent).toEqual({ role: "assistant", content: "", refusal: null, tool_calls: [toolCall], audio: null });
  });

  it("serves a content part that carries cache_control, passing it to the provider", async () => {
    const openai = await sdk();
    const part = { type: "text", text: "A long, cacheable context.", cache_control: { type: "ephemeral" } };
    const res = await openai.chat.completions.create({
      model: PROVIDER_MODEL,
      messages: [{ role: "user", content: [part as { type: "text"; text: string }] }],
    });
    expect(res.choices[0]!.message.content).toBe("12 °C in Oslo.");
    expect(received.at(-1)!.messages).toEqual([{ role: "user", content: [part] }]);
  });

  it("refuses n: 2 with a 400 the SDK raises as BadRequestError, naming n in the body's message and detail", async () => {
    const openai = await sdk();
    const err = await openai.chat.completions
      .create({ model: PROVIDER_MODEL, messages: [{ role: "user", content: "two answers" }], n: 2 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    const bad = err as BadRequestError;
    expect(bad.status).toBe(400);
    // The SDK reads the body's error object: Signet's stable code is its code, the field at fault its param.
    expect(bad).toMatchObject({ code: "invalid_request", type: "invalid_request_error", param: "n" });
    expect(bad.message).toMatch(/^400 n: must be 1: a call buys one answer/);
    const body = (await (
      await fetch(`${service.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: PROVIDER_MODEL, messages: [{ role: "user", content: "x" }], n: 2 }),
      })
    ).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      error: {
        code: "invalid_request",
        detail: "n",
        message: expect.stringMatching(/^n: must be 1: a call buys one answer/),
        param: "n",
      },
    });
  });

  it("a stream with stream_options.include_usage ends with the SDK's usage chunk (choices []), and the receipt verifies over the chunks", async () => {
    const openai = await sdk();
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "stream with usage" }];
    const stream = await openai.chat.completions.create({
      model: "local/echo-1",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    let receipt: Record<string, unknown> | null = null;
    for await (const event of stream) {
      const carried = (event as unknown as { service_receipt?: { receipt: Record<string, unknown> } }).service_receipt;
      if (carried) receipt = carried.receipt;
      else chunks.push(event);
    }
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
    });
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]).toMatchObject({ finish_reason: "stop", logprobs: null });
    expect(finish.usage).toBeNull();
    for (const chunk of chunks.slice(0, -1)) expect(chunk.choices[0]!.logprobs).toBeNull();
    const verdict = await verifyReceipt({
      receipt: receipt!,
      prompt: messages,
      response: chunks,
      operatorKey: operatorKey(),
      rpc: stack.devnet.url,
    });
    expect(verdict.ok).toBe(true);
  });

  it("a stream without include_usage keeps the usage on the finish chunk", async () => {
    const openai = await sdk();
    const stream = await openai.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "plain stream" }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const event of stream)
      if (!(event as unknown as { service_receipt?: unknown }).service_receipt) chunks.push(event);
    const last = chunks.at(-1)!;
    expect(last.choices[0]).toMatchObject({ finish_reason: "stop", logprobs: null });
    expect(last.usage).toMatchObject({ total_tokens: expect.any(Number) });
  });

  it("a plain answer has choices[].logprobs and message.refusal as null", async () => {
    const openai = await sdk();
    const res = await openai.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "fields" }],
      logprobs: null,
      store: false,
      metadata: { a: "b" },
      service_tier: "auto",
    });
    expect(res.choices[0]!.logprobs).toBeNull();
    expect(res.choices[0]!.message.refusal).toBeNull();
    expect(res.choices[0]!).toHaveProperty("logprobs", null);
    expect(res.choices[0]!.message).toHaveProperty("refusal", null);
  });
});
