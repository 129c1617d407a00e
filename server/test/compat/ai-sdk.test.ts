// The AI SDK (`ai` 7.0.173) unchanged, over real HTTP, paid with the stock @x402/fetch client: @ai-sdk/openai-compatible
// 3.0.92 and @ai-sdk/openai 4.0.118's chat model on the chat route, and @ai-sdk/openai's default model on the Responses
// route. generateText and streamText finish with "stop", a stream has no error part, and each answer's receipt (the
// header, or the receipt chunk in the raw stream teed off the SDK's fetch) verifies; a tool round trip with `tools` and
// `stopWhen` runs the tool and ends with the model's answer, plain and streamed (the fake provider as the upstream, so
// the model really calls the tool), paid per step and from prepaid credit; an error reaches the SDK as an APICallError
// with the body's message and code. The Responses route serves function tools too, plain and streamed.
import {
  APICallError,
  embed,
  embedMany,
  generateText,
  jsonSchema,
  stepCountIs,
  streamText,
  tool,
  type LanguageModel,
} from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { readStreamedAnswer, receiptOfEvent, sseData } from "../../upstream/read-sse";
import { parseReceiptText, verifyReceipt } from "../../verify";
import type { ServedStack } from "../support/http-service";
import { startCompatStack, stockPayingFetch, type CompatStack } from "./compat-stack";
import { teeingFetch, type TeeingFetch } from "../support/tee-fetch";
import { PROVIDER_MODEL, WEATHER_ANSWER, WEATHER_PARAMETERS } from "./weather-model";

const LOCAL = "local/echo-1";
const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};
const operatorKey = () => operatorKeypair().publicKeyBase58;

let compat: CompatStack;
let served: ServedStack;

beforeAll(async () => {
  compat = await startCompatStack();
  ({ served } = compat);
}, 120_000);
afterAll(async () => compat?.close());

const baseURL = () => compat.baseURL;

/** The stock @x402/fetch client of a fresh funded agent, teed so a test can read the raw answers. */
async function paidFetch(): Promise<TeeingFetch> {
  return teeingFetch((await stockPayingFetch(served)).fetch);
}

type ModelOf = (tee: TeeingFetch, id: string) => LanguageModel;
const compatModel: ModelOf = (tee, id) =>
  createOpenAICompatible({ name: "signet", baseURL: baseURL(), fetch: tee.fetch, includeUsage: true }).chatModel(id);
const openaiChatModel: ModelOf = (tee, id) =>
  createOpenAI({ baseURL: baseURL(), apiKey: "unused: x402 pays per call", fetch: tee.fetch }).chat(id);
const openaiResponsesModel: ModelOf = (tee, id) =>
  createOpenAI({ baseURL: baseURL(), apiKey: "unused: x402 pays per call", fetch: tee.fetch })(id);
const CHAT_MODELS: [string, ModelOf][] = [
  ["@ai-sdk/openai-compatible", compatModel],
  ["@ai-sdk/openai (chat)", openaiChatModel],
];

/** The weather tool, recording each call's input. */
const weatherTool = (called: unknown[]) => ({
  get_weather: tool({
    description: "The weather in a city",
    inputSchema: jsonSchema<{ city: string }>(WEATHER_PARAMETERS),
    execute: async (input: { city: string }) => (called.push(input), { celsius: 12 }),
  }),
});

/** Runs streamText to its end: the part types, any error (part or callback), the text and the finish reason. */
async function streamToEnd(args: Parameters<typeof streamText>[0]) {
  const errors: unknown[] = [];
  const result = streamText({ ...args, onError: ({ error }) => void errors.push(error) });
  const parts: string[] = [];
  for await (const part of result.fullStream) {
    parts.push(part.type);
    if (part.type === "error") errors.push(part.error);
  }
  // A stream that ended in an error has no output: its text, finish reason and steps reject.
  const settled = <T>(p: PromiseLike<T>) =>
    Promise.resolve(p).then(
      (v): T | null => v,
      () => null,
    );
  return {
    parts,
    errors,
    text: await settled(result.text),
    finishReason: await settled(result.finishReason),
    usage: await settled(result.usage),
    steps: (await settled(result.steps)) ?? [],
  };
}

/** Each teed chat stream read as a client reads it: what was sent, the raw stream, and the answer with its receipt. */
async function streamedAnswers(tee: TeeingFetch) {
  return Promise.all(
    tee.exchanges.map(async (exchange) => {
      const raw = await exchange.responseText;
      return {
        sent: JSON.parse(exchange.requestBody!) as { messages: unknown[]; stream?: boolean },
        raw,
        answer: await readStreamedAnswer(new Response(raw).body!),
      };
    }),
  );
}

describe.each(CHAT_MODELS)("%s on the chat route, paid with @x402/fetch", (_name, modelOf) => {
  it("generateText: finishes with stop, and the X-Service-Receipt verifies over the SDK's text", async () => {
    const tee = await paidFetch();
    const prompt = `generateText through ${_name}`;
    const result = await generateText({ model: modelOf(tee, LOCAL), prompt });
    expect(result.finishReason).toBe("stop");
    expect(result.text).toContain(`You said: "${prompt}"`);
    const parsed = parseReceiptText(result.response.headers?.["x-service-receipt"] ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as { messages: unknown[] };
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: sent.messages,
      response: result.text,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("streamText: finishes with stop and no error part, and the receipt in the raw stream verifies over the chunks and the SDK's text", async () => {
    const tee = await paidFetch();
    const prompt = `streamText through ${_name}`;
    const run = await streamToEnd({ model: modelOf(tee, LOCAL), prompt });
    expect(run.errors).toEqual([]);
    expect(run.parts).not.toContain("error");
    expect(run.finishReason).toBe("stop");
    expect(run.text).toContain(`You said: "${prompt}"`);
    expect(run.usage?.outputTokens).toBeGreaterThan(0);
    const streams = await streamedAnswers(tee);
    expect(streams).toHaveLength(1);
    const { sent, raw, answer } = streams[0]!;
    expect(sent.stream).toBe(true);
    expect(raw).toContain('"object":"service.receipt"');
    expect(answer.done).toBe(true);
    expect(answer.text).toBe(run.text);
    expect(answer.x402Receipt).toMatchObject({ format: "jws" });
    const verdict = await verifyReceipt({
      receipt: answer.receipt!,
      prompt: sent.messages,
      response: answer.chunks,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
    expect(
      (
        await verifyReceipt({
          receipt: answer.receipt!,
          prompt: sent.messages,
          response: run.text!,
          operatorKey: operatorKey(),
          rpc: served.stack.devnet.url,
        })
      ).ok,
    ).toBe(true);
  });

  it("a tool round trip with generateText, tools and stopWhen: the tool runs with the model's arguments, and the model answers", async () => {
    const tee = await paidFetch();
    const called: unknown[] = [];
    const result = await generateText({
      model: modelOf(tee, PROVIDER_MODEL),
      prompt: "Weather in Oslo?",
      tools: weatherTool(called),
      stopWhen: stepCountIs(3),
    });
    expect(called).toEqual([{ city: "Oslo" }]);
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(result.text).toBe(WEATHER_ANSWER);
    // Two calls, each paid, each with its receipt.
    expect(result.steps.map((s) => parseReceiptText(s.response.headers?.["x-service-receipt"] ?? "").ok)).toEqual([
      true,
      true,
    ]);
  });

  it("a tool round trip with streamText: the streamed tool call arrives whole, the tool runs, the model answers, and both streams carry receipts that verify", async () => {
    const tee = await paidFetch();
    const called: unknown[] = [];
    const run = await streamToEnd({
      model: modelOf(tee, PROVIDER_MODEL),
      prompt: "Weather in Oslo, streamed?",
      tools: weatherTool(called),
      stopWhen: stepCountIs(3),
    });
    expect(run.errors).toEqual([]);
    expect(run.parts).toEqual(expect.arrayContaining(["tool-call", "tool-result"]));
    expect(called).toEqual([{ city: "Oslo" }]);
    expect(run.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(run.finishReason).toBe("stop");
    expect(run.text).toBe(WEATHER_ANSWER);
    const streams = await streamedAnswers(tee);
    expect(streams).toHaveLength(2);
    for (const { sent, answer } of streams) {
      expect(answer.done).toBe(true);
      const verdict = await verifyReceipt({
        receipt: answer.receipt!,
        prompt: sent.messages,
        response: answer.chunks,
        operatorKey: operatorKey(),
        rpc: served.stack.devnet.url,
      });
      expect(verdict.checks).toEqual(allChecks);
    }
  });

  it("an error reaches the SDK as an APICallError with the body's message and code (generateText), and as an error part (streamText)", async () => {
    const tee = await paidFetch();
    const err = await generateText({
      model: modelOf(tee, LOCAL),
      prompt: "too hot",
      temperature: 3,
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    const callError = err as APICallError;
    expect(callError.statusCode).toBe(400);
    expect(callError.message).toMatch(/^temperature: /);
    expect(JSON.parse(callError.responseBody!)).toMatchObject({
      error: { code: "invalid_request", param: "temperature", type: "invalid_request_error" },
    });
    const run = await streamToEnd({
      model: modelOf(tee, LOCAL),
      prompt: "too hot, streamed",
      temperature: 3,
      maxRetries: 0,
    });
    expect(run.parts).toContain("error");
    expect((run.errors[0] as APICallError).statusCode).toBe(400);
  });
});

describe("@ai-sdk/openai's default model on the Responses route, paid with @x402/fetch", () => {
  it("generateText: finishes with stop, and the X-Service-Receipt verifies over the SDK's text and the request it sent", async () => {
    const tee = await paidFetch();
    const prompt = "generateText through the Responses API";
    const result = await generateText({ model: openaiResponsesModel(tee, LOCAL), prompt });
    expect(result.finishReason).toBe("stop");
    expect(result.text).toContain(`You said: "${prompt}"`);
    expect(tee.exchanges.at(-1)!.url).toBe(`${baseURL()}/responses`);
    const parsed = parseReceiptText(result.response.headers?.["x-service-receipt"] ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as unknown;
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: sent,
      response: result.text,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("streamText: finishes with stop and no error part, and the receipt on response.completed verifies", async () => {
    const tee = await paidFetch();
    const prompt = "streamText through the Responses API";
    const run = await streamToEnd({ model: openaiResponsesModel(tee, LOCAL), prompt });
    expect(run.errors).toEqual([]);
    expect(run.finishReason).toBe("stop");
    expect(run.text).toContain(`You said: "${prompt}"`);
    const exchange = tee.exchanges.at(-1)!;
    let receipt = null;
    for await (const data of sseData(new Response(await exchange.responseText).body!))
      receipt = receiptOfEvent(data)?.receipt ?? receipt;
    if (!receipt) throw new Error("no receipt in the raw stream");
    const verdict = await verifyReceipt({
      receipt,
      prompt: JSON.parse(exchange.requestBody!) as unknown,
      response: run.text,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("a tool round trip there with generateText: function_call out, function_call_output back, the model answers", async () => {
    const tee = await paidFetch();
    const called: unknown[] = [];
    const result = await generateText({
      model: openaiResponsesModel(tee, PROVIDER_MODEL),
      prompt: "Weather in Oslo?",
      tools: weatherTool(called),
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(called).toEqual([{ city: "Oslo" }]);
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(result.text).toBe(WEATHER_ANSWER);
  });

  it("a streamed tool round trip there with streamText: the call's arguments arrive whole, the model answers", async () => {
    const tee = await paidFetch();
    const called: unknown[] = [];
    const run = await streamToEnd({
      model: openaiResponsesModel(tee, PROVIDER_MODEL),
      prompt: "Weather in Oslo, streamed on the Responses API?",
      tools: weatherTool(called),
      stopWhen: stepCountIs(3),
    });
    expect(run.errors).toEqual([]);
    expect(called).toEqual([{ city: "Oslo" }]);
    expect(run.text).toBe(WEATHER_ANSWER);
  });
});

describe("@ai-sdk/openai-compatible on the prepaid route, signed", () => {
  it("a streamed tool round trip from credit: the tool runs, the model answers, and both streams carry receipts of the key", async () => {
    const kp = generateKeypair();
    await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
    const tee = teeingFetch((async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(signRequestHeaders(kp, "POST", url, String(init?.body))))
        headers.set(name, value);
      return fetch(url, { ...init, headers });
    }) as typeof fetch);
    const model = new OpenAICompatibleChatLanguageModel(PROVIDER_MODEL, {
      provider: "signet.prepaid",
      url: () => `${baseURL()}/inference`,
      headers: () => ({}),
      fetch: tee.fetch,
      transformRequestBody: (body) => ({ ...body, nonce: newNonce(), timestamp: Date.now() }),
    });
    const called: unknown[] = [];
    const run = await streamToEnd({
      model,
      prompt: "Weather in Oslo, from credit?",
      tools: weatherTool(called),
      stopWhen: stepCountIs(3),
    });
    expect(run.errors).toEqual([]);
    expect(called).toEqual([{ city: "Oslo" }]);
    expect(run.text).toBe(WEATHER_ANSWER);
    const streams = await streamedAnswers(tee);
    expect(streams.map(({ answer }) => answer.receipt?.agent_pubkey)).toEqual([kp.publicKeyBase58, kp.publicKeyBase58]);
  });
});

describe("the AI SDK's embed and embedMany on the embeddings route, paid with @x402/fetch", () => {
  const EMBED = "local/hash-embed-1";
  const receiptIn = (headers: Record<string, string> | undefined) => {
    const parsed = parseReceiptText(headers?.["x-service-receipt"] ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    return parsed.receipt;
  };

  it("embedMany with @ai-sdk/openai's embedding model: one vector per value in order, and the receipt verifies over them", async () => {
    const tee = await paidFetch();
    const model = createOpenAI({
      baseURL: baseURL(),
      apiKey: "unused: x402 pays per call",
      fetch: tee.fetch,
    }).embedding(EMBED);
    const values = ["alpha", "beta", "gamma"];
    const { embeddings, responses } = await embedMany({ model, values, maxRetries: 0 });
    expect(embeddings.map((e) => e.length)).toEqual([256, 256, 256]);
    const receipt = receiptIn(responses?.[0]?.headers);
    const verdict = await verifyReceipt({
      receipt,
      prompt: { model: EMBED, input: values },
      response: embeddings,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("embed with @ai-sdk/openai-compatible's embedding model: the one vector, and the receipt verifies over the value and it", async () => {
    const tee = await paidFetch();
    const model = createOpenAICompatible({ name: "signet", baseURL: baseURL(), fetch: tee.fetch }).embeddingModel(
      EMBED,
    );
    const { embedding, response } = await embed({ model, value: "one value", maxRetries: 0 });
    expect(embedding).toHaveLength(256);
    const verdict = await verifyReceipt({
      receipt: receiptIn(response?.headers),
      prompt: "one value",
      response: embedding,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });
});
