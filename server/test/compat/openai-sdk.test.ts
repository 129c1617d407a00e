// The official `openai` SDK (7.59.0), unchanged, over real HTTP: `baseURL` at /api/v1 and `fetch` set to the stock
// @x402/fetch client (x402Client with the exact SVM scheme), or to the shipped signingFetch, which signs each body for
// prepaid credit at the SDK's own paths.
// Each path: pay, stream (and the stream() helper), a tool round trip plain and streamed (the fake provider as the
// upstream, so the model really calls the tool, and the SDK's own runTools loop), an error the SDK raises with the
// body's code, param and message, the models, and the Responses API (responses.create and responses.stream()).
import OpenAI, { APIError, BadRequestError, NotFoundError } from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { signingFetch } from "../../agent/signing-fetch";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { receiptOfEvent } from "../../upstream/read-sse";
import { parseReceiptText, verifyReceipt } from "../../verify";
import type { ServedStack } from "../support/http-service";
import { startCompatStack, stockPayingFetch, type CompatStack } from "./compat-stack";
import { teeingFetch } from "../support/tee-fetch";
import { PROVIDER_MODEL, WEATHER_ANSWER, WEATHER_CALL, WEATHER_PARAMETERS, type WeatherModel } from "./weather-model";

const PRICE = 1_000n;
const LOCAL = "local/echo-1";
const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: WEATHER_PARAMETERS } }];
const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};
const operatorKey = () => operatorKeypair().publicKeyBase58;

let compat: CompatStack;
let weather: WeatherModel;
let served: ServedStack;

beforeAll(async () => {
  compat = await startCompatStack();
  ({ weather, served } = compat);
}, 120_000);
afterAll(async () => compat?.close());

const baseURL = () => compat.baseURL;

/** A fresh funded agent's SDK client, exactly as the README sets it up, and the agent's address. */
async function paidSdk(): Promise<{ openai: OpenAI; address: string; fetch: typeof fetch }> {
  const { fetch: payingFetch, address } = await stockPayingFetch(served);
  return {
    openai: new OpenAI({ baseURL: baseURL(), apiKey: "unused: x402 pays per call", fetch: payingFetch, maxRetries: 0 }),
    address,
    fetch: payingFetch,
  };
}

/**
 * A credited key's SDK client for the prepaid routes, with the shipped signing fetch and nothing else: the SDK calls
 * /chat/completions and /responses at their own paths, and each body is signed for credit as sent.
 */
async function prepaidSdk(): Promise<{ openai: OpenAI; kp: Ed25519Keypair }> {
  const kp = generateKeypair();
  await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
  return {
    openai: new OpenAI({
      baseURL: baseURL(),
      apiKey: "unused: signed requests",
      fetch: signingFetch(kp),
      maxRetries: 0,
    }),
    kp,
  };
}

/** The weather tool as runTools() takes it: the function it runs, recording each call's parsed arguments. */
const runnableWeather = (called: unknown[]) => ({
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: WEATHER_PARAMETERS,
    parse: JSON.parse,
    function: (args: unknown) => (called.push(args), { celsius: 12 }),
  },
});

/** A stream's chunks, and the receipt its receipt chunk carries. */
async function drain(
  stream: AsyncIterable<ChatCompletionChunk>,
): Promise<{ chunks: ChatCompletionChunk[]; receipt: Record<string, unknown> | null }> {
  const chunks: ChatCompletionChunk[] = [];
  let receipt: Record<string, unknown> | null = null;
  for await (const chunk of stream) {
    const carried = (chunk as unknown as { service_receipt?: { receipt: Record<string, unknown> } }).service_receipt;
    if (carried) receipt = carried.receipt;
    else chunks.push(chunk);
  }
  return { chunks, receipt };
}

describe("openai SDK, paid with @x402/fetch", () => {
  it("chat.completions.create(): pays the price once, PAYMENT-RESPONSE names the payer, and the receipt verifies with all five checks", async () => {
    const { openai, address } = await paidSdk();
    const messages = [{ role: "user" as const, content: "hello from the openai SDK" }];
    const { data, response } = await openai.chat.completions.create({ model: LOCAL, messages }).withResponse();
    expect(data.choices[0]!.message.content).toContain("hello from the openai SDK");
    expect(decodePaymentResponseHeader(response.headers.get("payment-response")!)).toMatchObject({
      success: true,
      payer: address,
    });
    const parsed = parseReceiptText(response.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    expect(data.id).toBe(`chatcmpl-${parsed.receipt.inference_id}`);
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: messages,
      response: data,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
    expect(await served.stack.devnet.usdcBalance(address)).toBe(1_000_000n - PRICE);
  });

  it("create({ stream: true, stream_options }): the chunks, the usage chunk, then the receipt chunk, which verifies over the chunks", async () => {
    const { openai } = await paidSdk();
    const messages = [{ role: "user" as const, content: "a paid stream" }];
    const { chunks, receipt } = await drain(
      await openai.chat.completions.create({
        model: LOCAL,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage).toMatchObject({ total_tokens: expect.any(Number) });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe("stop");
    if (!receipt) throw new Error("no receipt chunk");
    const verdict = await verifyReceipt({
      receipt,
      prompt: messages,
      response: chunks,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("chat.completions.stream(): the helper's final completion has the text, stop, the usage and the receipt", async () => {
    const { openai } = await paidSdk();
    const messages = [{ role: "user" as const, content: "the stream helper" }];
    const final = await openai.chat.completions
      .stream({ model: LOCAL, messages, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0]!.message.content).toContain("the stream helper");
    expect(final.choices[0]!.finish_reason).toBe("stop");
    expect(final.usage).toMatchObject({ total_tokens: expect.any(Number) });
    const carried = (final as unknown as { service_receipt?: { receipt: Record<string, unknown> } }).service_receipt;
    if (!carried) throw new Error("no receipt on the final completion");
    const verdict = await verifyReceipt({
      receipt: carried.receipt,
      prompt: messages,
      response: final,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("a tool round trip, plain: the model's tool call, the SDK's message passed back with the tool's result, the model's answer", async () => {
    const { openai } = await paidSdk();
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Oslo?" }];
    const first = await openai.chat.completions.create({ model: PROVIDER_MODEL, messages, tools });
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(first.choices[0]!.message.tool_calls).toEqual([WEATHER_CALL]);
    const second = await openai.chat.completions.create({
      model: PROVIDER_MODEL,
      messages: [
        ...messages,
        first.choices[0]!.message,
        { role: "tool", tool_call_id: WEATHER_CALL.id, content: '{"celsius":12}' },
      ],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe(WEATHER_ANSWER);
    expect(weather.received.at(-1)!.messages).toMatchObject([
      { role: "user" },
      { role: "assistant", tool_calls: [WEATHER_CALL] },
      { role: "tool", tool_call_id: WEATHER_CALL.id },
    ]);
  });

  it("a tool round trip, streamed: the stream() helper assembles the whole tool call (finish reason tool_calls), and the next stream answers", async () => {
    const { openai } = await paidSdk();
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Oslo, streamed?" }];
    const first = await openai.chat.completions
      .stream({ model: PROVIDER_MODEL, messages, tools })
      .finalChatCompletion();
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(first.choices[0]!.message.tool_calls).toEqual([WEATHER_CALL]);
    expect(
      (first as unknown as { service_receipt?: { receipt: { model: string } } }).service_receipt?.receipt.model,
    ).toBe(PROVIDER_MODEL);
    const second = await openai.chat.completions
      .stream({
        model: PROVIDER_MODEL,
        messages: [
          ...messages,
          first.choices[0]!.message,
          { role: "tool", tool_call_id: WEATHER_CALL.id, content: '{"celsius":12}' },
        ],
        tools,
      })
      .finalChatCompletion();
    expect(second.choices[0]!.message.content).toBe(WEATHER_ANSWER);
    expect(second.choices[0]!.finish_reason).toBe("stop");
    // The helper's message carries its own `parsed` and `parsed_arguments`: served, and kept from the provider.
    expect(first.choices[0]!.message).toHaveProperty("parsed");
    const passedOn = weather.received.at(-1)!.messages as Record<string, unknown>[];
    expect(passedOn[1]).not.toHaveProperty("parsed");
    expect(passedOn[1]!.tool_calls).toEqual([WEATHER_CALL]);
  });

  it("runTools({ stream: true }): the SDK's own tool loop calls the function with the streamed arguments and ends with the model's answer", async () => {
    const { openai } = await paidSdk();
    const called: unknown[] = [];
    const runner = openai.chat.completions.runTools({
      model: PROVIDER_MODEL,
      stream: true,
      messages: [{ role: "user", content: "Weather in Oslo, by the tool loop?" }],
      tools: [runnableWeather(called)],
    });
    expect(await runner.finalContent()).toBe(WEATHER_ANSWER);
    expect(called).toEqual([{ city: "Oslo" }]);
  });

  it("n: 2 is refused before any payment: the SDK's BadRequestError carries the body's code, param, type and message", async () => {
    const { openai, address } = await paidSdk();
    const err = await openai.chat.completions
      .create({ model: LOCAL, messages: [{ role: "user", content: "two answers" }], n: 2 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    const bad = err as BadRequestError;
    expect(bad.status).toBe(400);
    expect(bad.code).toBe("invalid_request");
    expect(bad.param).toBe("n");
    expect(bad.type).toBe("invalid_request_error");
    expect(bad.message).toMatch(/^400 n: must be 1/);
    expect(await served.stack.devnet.usdcBalance(address)).toBe(1_000_000n);
  });

  it("without a paying fetch, a call is the SDK's APIError 402 with code payment_required", async () => {
    const openai = new OpenAI({ baseURL: baseURL(), apiKey: "unused", maxRetries: 0 });
    const err = await openai.chat.completions
      .create({ model: LOCAL, messages: [{ role: "user", content: "unpaid" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    const apiError = err as APIError;
    expect(apiError.status).toBe(402);
    expect(apiError.code).toBe("payment_required");
    expect(apiError.type).toBe("payment_required_error");
    // The body is x402 v1's challenge with the error's fields beside it: the SDK shows the service's own message.
    expect(apiError.message).toMatch(/^402 [a-z]/);
    expect(apiError.message).not.toContain("{");
    expect(apiError.error).toMatchObject({ x402Version: 1, accepts: [expect.objectContaining({ scheme: "exact" })] });
  });

  it("models.list() and models.retrieve(), free; a model not offered is the SDK's NotFoundError with code model_not_found", async () => {
    const { openai } = await paidSdk();
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining([LOCAL, PROVIDER_MODEL]));
    expect(await openai.models.retrieve(PROVIDER_MODEL)).toMatchObject({
      id: PROVIDER_MODEL,
      object: "model",
      created: expect.any(Number),
      owned_by: expect.any(String),
    });
    const err = await openai.models.retrieve("acme/no-such-model").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe("model_not_found");
  });

  it("responses.create(): pays, answers with output_text, and the receipt verifies over the request and the response object", async () => {
    const { fetch: payingFetch } = await paidSdk();
    const tee = teeingFetch(payingFetch);
    const openai = new OpenAI({
      baseURL: baseURL(),
      apiKey: "unused: x402 pays per call",
      fetch: tee.fetch,
      maxRetries: 0,
    });
    const { data, response } = await openai.responses
      .create({ model: LOCAL, input: "hello from responses.create", instructions: "Be brief." })
      .withResponse();
    expect(data.status).toBe("completed");
    expect(data.output_text).toContain("hello from responses.create");
    const parsed = parseReceiptText(response.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as unknown;
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: sent,
      response: data,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("responses.stream(): the helper's final response has the whole text and carries the receipt, which verifies", async () => {
    const { fetch: payingFetch } = await paidSdk();
    const tee = teeingFetch(payingFetch);
    const openai = new OpenAI({
      baseURL: baseURL(),
      apiKey: "unused: x402 pays per call",
      fetch: tee.fetch,
      maxRetries: 0,
    });
    const deltas: string[] = [];
    const stream = openai.responses.stream({ model: LOCAL, input: "hello from responses.stream" });
    stream.on("response.output_text.delta", (event) => void deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toContain("hello from responses.stream");
    expect(deltas.join("")).toBe(final.output_text);
    const carried = receiptOfEvent({ type: "response.completed", response: final });
    if (!carried) throw new Error("no receipt on the final response");
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as unknown;
    const verdict = await verifyReceipt({
      receipt: carried.receipt,
      prompt: sent,
      response: final,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });
});

describe("openai SDK, signed and paid from prepaid credit", () => {
  it("chat.completions.create() and a stream at the SDK's own path: answered from credit, with prepaid receipts (no payment block) that verify", async () => {
    const { openai, kp } = await prepaidSdk();
    const messages = [{ role: "user" as const, content: "a prepaid call from the openai SDK" }];
    const { data, response } = await openai.chat.completions.create({ model: LOCAL, messages }).withResponse();
    expect(response.url).toBe(`${baseURL()}/chat/completions`);
    expect(data.choices[0]!.message.content).toContain("a prepaid call from the openai SDK");
    // Spent from credit: the balance the answer reports is below what was credited, and no payment was made.
    expect(Number(response.headers.get("x-credit-balance-usdc"))).toBeLessThan(1);
    expect(response.headers.get("payment-response")).toBeNull();
    const parsed = parseReceiptText(response.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    expect(parsed.receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
    expect(parsed.receipt).not.toHaveProperty("payment");
    expect(
      (await verifyReceipt({ receipt: parsed.receipt, prompt: messages, response: data, operatorKey: operatorKey() }))
        .ok,
    ).toBe(true);

    const { chunks, receipt } = await drain(
      await openai.chat.completions.create({ model: LOCAL, messages, stream: true }),
    );
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    if (!receipt) throw new Error("no receipt chunk");
    expect((await verifyReceipt({ receipt, prompt: messages, response: chunks, operatorKey: operatorKey() })).ok).toBe(
      true,
    );
  });

  it("a streamed tool round trip from credit, through runTools", async () => {
    const { openai } = await prepaidSdk();
    const called: unknown[] = [];
    const runner = openai.chat.completions.runTools({
      model: PROVIDER_MODEL,
      stream: true,
      messages: [{ role: "user", content: "Weather in Oslo, from credit?" }],
      tools: [runnableWeather(called)],
    });
    expect(await runner.finalContent()).toBe(WEATHER_ANSWER);
    expect(called).toEqual([{ city: "Oslo" }]);
  });

  it("responses.create() signed: answered from credit", async () => {
    const { openai, kp } = await prepaidSdk();
    const { data, response } = await openai.responses
      .create({ model: LOCAL, input: "a prepaid Responses call" })
      .withResponse();
    expect(data.output_text).toContain("a prepaid Responses call");
    const parsed = parseReceiptText(response.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    expect(parsed.receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
  });
});

describe("openai SDK embeddings.create()", () => {
  const EMBED = "local/hash-embed-1";
  const receiptOf = (response: Response) => {
    const parsed = parseReceiptText(response.headers.get("x-service-receipt") ?? "");
    if (!parsed.ok) throw new Error("no receipt header");
    return parsed.receipt;
  };

  it("paid: the vectors the SDK decodes (it asks for base64) in input order, and the receipt verifies over the request and them", async () => {
    const { openai, address } = await paidSdk();
    const input = ["the first text", "the second text"];
    const { data, response } = await openai.embeddings.create({ model: EMBED, input }).withResponse();
    expect(data.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ["embedding", 0, 256],
      ["embedding", 1, 256],
    ]);
    expect(data.model).toBe(EMBED);
    const receipt = receiptOf(response);
    expect(decodePaymentResponseHeader(response.headers.get("payment-response")!).payer).toBe(address);
    const verdict = await verifyReceipt({
      receipt,
      prompt: { model: EMBED, input },
      response: data.data.map((d) => d.embedding),
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
    // The receipt covers these vectors: another answer's fail.
    const tampered = data.data.map((d) => d.embedding.map((v, i) => (i === 0 ? v + 1 : v)));
    expect(
      (
        await verifyReceipt({
          receipt,
          prompt: { model: EMBED, input },
          response: tampered,
          operatorKey: operatorKey(),
          rpc: served.stack.devnet.url,
        })
      ).checks.response_hash_ok,
    ).toBe(false);
  });

  it("signed: answered from credit with the dimensions asked, and the receipt names the key", async () => {
    const { openai, kp } = await prepaidSdk();
    const { data, response } = await openai.embeddings
      .create({ model: EMBED, input: "a prepaid embedding", dimensions: 64, encoding_format: "float" })
      .withResponse();
    expect(data.data[0]!.embedding).toHaveLength(64);
    const receipt = receiptOf(response);
    expect(receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58, model: EMBED });
    expect(
      (await verifyReceipt({ receipt, prompt: "a prepaid embedding", response: data, operatorKey: operatorKey() }))
        .checks,
    ).toMatchObject({ prompt_hash_ok: true, response_hash_ok: true, service_signature_ok: true });
  });

  it("stream is refused before any payment: the SDK's BadRequestError carries code streaming_not_supported and param stream", async () => {
    const { openai } = await paidSdk();
    const err = await openai.embeddings
      .create({ model: EMBED, input: "x", stream: true } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, code: "streaming_not_supported", param: "stream" });
  });
});
