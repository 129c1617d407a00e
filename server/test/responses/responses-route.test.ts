// POST /api/v1/responses over real HTTP: OpenAI's Responses API, paid per call with x402 through the chat route's money
// path. Without a payment it is a 402 challenge; paid, a plain answer is the Responses object with the X-Service-Receipt
// header, and a stream is the Responses events in order with the receipt on `response.completed`; both receipts verify
// over the request body and the answer. The official `openai` SDK (`responses.create`, plain and streamed) and the AI
// SDK's default `openai(model)` (the Responses API) work unchanged; a payment made on the chat route is refused here and
// the other way round (409 payment_request_mismatch); what a stateless text call cannot honour is a 400 naming the field.
// A request signed by an agent's key (the prepaid route's signature, naming /api/v1/responses) is served from credit
// instead, plain and streamed, through both SDKs, with a receipt that verifies.
import { generateText, streamText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/v1/responses/route";
import { routeRuntime } from "../../runtime/route-edge";
import { createPayingFetch } from "../../agent/paying-fetch";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { sseData, receiptOfEvent } from "../../upstream/read-sse";
import { parseReceiptText, verifyReceipt } from "../../verify";
import { startServedStack, type ServedStack } from "../support/http-service";
import { buildPaymentHeader, challengeOf } from "../support/paid-stack";
import { teeingFetch, type TeeingFetch } from "../support/tee-fetch";

let served: ServedStack;

beforeAll(async () => {
  served = await startServedStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" } });
});
afterAll(async () => served?.close());

const MODEL = "local/echo-1";
const operatorKey = () => operatorKeypair().publicKeyBase58;
const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};
const url = (path: string) => `${served.service.url}${path}`;

/** A fetch that pays each 402 with a fresh funded agent (the stock @x402/fetch), and tees what passes. */
async function paidFetch(): Promise<TeeingFetch> {
  const agent = await served.stack.newAgent();
  return teeingFetch(createPayingFetch(agent, { [served.stack.devnet.caip2]: served.stack.devnet.url }));
}

const post = (f: typeof fetch, path: string, body: unknown, headers: Record<string, string> = {}) =>
  f(url(path), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

function receiptOfHeader(res: Response) {
  const parsed = parseReceiptText(res.headers.get("x-service-receipt") ?? "");
  if (!parsed.ok) throw new Error("no X-Service-Receipt");
  return parsed.receipt;
}

/** Every event of a raw Responses stream, and the SSE event names beside their `type`s. */
async function readEvents(res: Response): Promise<{ events: Record<string, unknown>[]; names: string[] }> {
  const raw = await res.text();
  const names = [...raw.matchAll(/^event: (.+)$/gm)].map((m) => m[1]!);
  const events: Record<string, unknown>[] = [];
  for await (const data of sseData(new Response(raw).body!)) events.push(data as Record<string, unknown>);
  return { events, names };
}

/** A compact JWS's payload, decoded (not verified: the offer-receipt tests verify these signatures). */
const jwsPayload = (jws: string) =>
  JSON.parse(Buffer.from(jws.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

const STREAM_ORDER = [
  "response.created",
  "response.in_progress",
  "response.output_item.added",
  "response.content_part.added",
  "response.output_text.delta",
  "response.output_text.done",
  "response.content_part.done",
  "response.output_item.done",
  "response.completed",
];

describe("POST /api/v1/responses, paid with x402", () => {
  it("answers 402 with the x402 challenge when no payment is sent", async () => {
    const res = await post(fetch, "/api/v1/responses", { model: MODEL, input: "hello" });
    expect(res.status).toBe(402);
    const challenge = await challengeOf(res);
    expect(challenge.accepts[0]).toMatchObject({ scheme: "exact", network: served.stack.devnet.caip2 });
    expect(challenge.resource.url).toBe(url("/api/v1/responses"));
    expect(challenge.resource.description).toMatch(/Responses API/);
    expect(Object.keys(challenge.extensions ?? {})).toEqual(expect.arrayContaining(["bazaar", "payment-identifier"]));
  });

  it("serves a plain answer as the Responses object, with a receipt that verifies over the request and the object", async () => {
    const tee = await paidFetch();
    const body = {
      model: MODEL,
      instructions: "Answer briefly.",
      input: [{ role: "user", content: [{ type: "input_text", text: "a plain Responses call" }] }],
      metadata: { k: "v" },
    };
    const logged = vi.spyOn((await routeRuntime()).log, "info");
    const res = await post(tee.fetch, "/api/v1/responses", body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, unknown> & { output: { content: { text: string }[] }[] };
    const receipt = receiptOfHeader(res);
    // The payment buys a call, on the responses route, and logs its events under that route's name.
    const events = logged.mock.calls.map(([fields]) => (fields as { event?: string }).event);
    logged.mockRestore();
    expect(events).toContain("responses.settle_ok");
    expect(events).not.toContain("chat.settle_ok");
    const stored = await (
      await routeRuntime()
    ).db.payment.findUniqueOrThrow({
      where: { txSignature: String((receipt.payment as { tx_signature: string }).tx_signature) },
    });
    expect([stored.purpose, stored.route]).toEqual(["call", "responses"]);
    expect(answer).toMatchObject({
      id: `resp_${receipt.inference_id}`,
      object: "response",
      status: "completed",
      model: MODEL,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", annotations: [] }],
        },
      ],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      store: false,
    });
    expect(answer.output[0]!.content[0]!.text).toContain('You said: "a plain Responses call"');
    const verdict = await verifyReceipt({
      receipt,
      prompt: body,
      response: answer,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
    // The receipt covers the messages the request maps to, not another prompt.
    const other = await verifyReceipt({
      receipt,
      prompt: { ...body, instructions: "Answer at length." },
      response: answer,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(other.checks.prompt_hash_ok).toBe(false);
  });

  it("streams the Responses events in order with rising sequence numbers, and the receipt on response.completed verifies", async () => {
    const tee = await paidFetch();
    const body = { model: MODEL, input: "a streamed Responses call", stream: true };
    const res = await post(tee.fetch, "/api/v1/responses", body);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { events, names } = await readEvents(res);
    const types = events.map((e) => e.type as string);
    expect(names).toEqual(types);
    expect([...new Set(types)]).toEqual(STREAM_ORDER);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const text = events
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => e.delta as string)
      .join("");
    expect(text).toContain('You said: "a streamed Responses call"');
    expect(events.find((e) => e.type === "response.output_text.done")).toMatchObject({ text });

    const completed = events.at(-1) as { response: Record<string, unknown> & { service_receipt: unknown } };
    expect(completed.response).toMatchObject({
      object: "response",
      status: "completed",
      output: [{ type: "message", content: [{ type: "output_text", text }] }],
    });
    const carried = receiptOfEvent(completed);
    if (!carried) throw new Error("no receipt on response.completed");
    expect(carried.x402Receipt).toMatchObject({ format: "jws" });
    // The x402 signed receipt names the resource the payment bought: this route, not the chat route.
    expect(jwsPayload(carried.x402Receipt!.signature)).toMatchObject({
      resourceUrl: url("/api/v1/responses"),
      payer: expect.any(String),
    });
    expect(completed.response.id).toBe(`resp_${carried.receipt.inference_id}`);
    const verdict = await verifyReceipt({
      receipt: carried.receipt,
      prompt: body,
      response: completed.response,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
    expect(
      (
        await verifyReceipt({
          receipt: carried.receipt,
          prompt: body,
          response: text,
          operatorKey: operatorKey(),
          rpc: served.stack.devnet.url,
        })
      ).ok,
    ).toBe(true);
  });

  it("refuses a payment made for a chat call (409 payment_request_mismatch), and a payment made here on the chat route", async () => {
    const agent = await served.stack.newAgent();
    const rpc = served.stack.devnet.url;
    const chatBody = { model: MODEL, messages: [{ role: "user", content: "hello" }] };
    const responsesBody = { model: MODEL, input: [{ role: "user", content: "hello" }] };

    const chatHeader = await buildPaymentHeader(
      agent,
      await challengeOf(await post(fetch, "/api/v1/chat/completions", chatBody)),
      rpc,
    );
    expect((await post(fetch, "/api/v1/chat/completions", chatBody, { "X-Payment": chatHeader })).status).toBe(200);
    const onResponses = await post(fetch, "/api/v1/responses", responsesBody, { "X-Payment": chatHeader });
    expect(onResponses.status).toBe(409);
    expect(await onResponses.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });

    const responsesHeader = await buildPaymentHeader(
      agent,
      await challengeOf(await post(fetch, "/api/v1/responses", responsesBody)),
      rpc,
    );
    expect((await post(fetch, "/api/v1/responses", responsesBody, { "X-Payment": responsesHeader })).status).toBe(200);
    const onChat = await post(fetch, "/api/v1/chat/completions", chatBody, { "X-Payment": responsesHeader });
    expect(onChat.status).toBe(409);
    expect(await onChat.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    // The payer's own repeat on its own route is its stored answer, in the Responses shape.
    const again = await post(fetch, "/api/v1/responses", responsesBody, { "X-Payment": responsesHeader });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(await again.json()).toMatchObject({ object: "response", status: "completed" });
  });

  it.each([
    ["store", { store: true }],
    ["previous_response_id", { previous_response_id: "resp_1" }],
    ["conversation", { conversation: "conv_1" }],
    ["background", { background: true }],
    ["tools.0.type", { tools: [{ type: "web_search" }] }],
    ["include", { include: ["message.output_text.logprobs"] }],
    [
      "input.0.content.0.type",
      { input: [{ role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] }] },
    ],
    ["input.0.type", { input: [{ type: "item_reference", id: "x" }] }],
    ["input.0.output", { input: [{ type: "function_call_output", call_id: "c1", output: [{ type: "input_text" }] }] }],
  ])("refuses %s with a 400 invalid_request naming it, before any payment", async (field, extra) => {
    const res = await post(fetch, "/api/v1/responses", { model: MODEL, input: "hello", ...extra });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; detail: string; param: string | null; message: string };
    };
    expect(body).toMatchObject({
      error: { code: "invalid_request", type: "invalid_request_error", detail: field, param: field },
    });
    expect(body.error.message.startsWith(`${field}: `)).toBe(true);
  });

  it("answers other methods 405", async () => {
    const res = await GET(new Request(url("/api/v1/responses")), {} as never);
    expect(res.status).toBe(405);
  });
});

describe("the openai SDK's responses.create against Signet", () => {
  const client = (f: typeof fetch) =>
    new OpenAI({ baseURL: url("/api/v1"), apiKey: "unused: x402 pays per call", fetch: f });

  it("plain: pays, answers with output_text, and the X-Service-Receipt verifies", async () => {
    const tee = await paidFetch();
    const { data, response } = await client(tee.fetch)
      .responses.create({ model: MODEL, input: "hello from the openai SDK", instructions: "Be brief." })
      .withResponse();
    expect(data.status).toBe("completed");
    expect(data.output_text).toContain('You said: "hello from the openai SDK"');
    const receipt = receiptOfHeader(response as unknown as Response);
    expect(data.id).toBe(`resp_${receipt.inference_id}`);
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as unknown;
    const verdict = await verifyReceipt({
      receipt,
      prompt: sent,
      response: data,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });

  it("stream: true: the events in order, and the completed response carries the receipt, which verifies", async () => {
    const tee = await paidFetch();
    const stream = await client(tee.fetch).responses.create({
      model: MODEL,
      input: "a stream from the openai SDK",
      stream: true,
    });
    const types: string[] = [];
    let text = "";
    let completed: Record<string, unknown> | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response as unknown as Record<string, unknown>;
    }
    expect([...new Set(types)]).toEqual(STREAM_ORDER);
    expect(text).toContain('You said: "a stream from the openai SDK"');
    const carried = receiptOfEvent({ type: "response.completed", response: completed });
    if (!carried) throw new Error("no receipt on response.completed");
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as unknown;
    const verdict = await verifyReceipt({
      receipt: carried.receipt,
      prompt: sent,
      response: completed,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });
});

describe("the openai SDK's responses.stream() helper against Signet", () => {
  it("accumulates the events into its final response, which keeps service_receipt, and the receipt verifies", async () => {
    const tee = await paidFetch();
    const client = new OpenAI({ baseURL: url("/api/v1"), apiKey: "unused: x402 pays per call", fetch: tee.fetch });
    const stream = client.responses.stream({ model: MODEL, input: "the stream helper" });
    let deltas = "";
    stream.on("response.output_text.delta", (event) => void (deltas += event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toContain('You said: "the stream helper"');
    expect(deltas).toBe(final.output_text);
    const carried = receiptOfEvent({ type: "response.completed", response: final });
    if (!carried) throw new Error("the final response lost service_receipt");
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

describe("the AI SDK's openai(model) (the Responses API) against Signet", () => {
  const model = (tee: TeeingFetch) =>
    createOpenAI({ baseURL: url("/api/v1"), apiKey: "unused: x402 pays per call", fetch: tee.fetch })(MODEL);

  it("generateText: finishes with stop, and the X-Service-Receipt verifies over the SDK's text and the request it sent", async () => {
    const tee = await paidFetch();
    const prompt = "a Responses answer through the AI SDK";
    const result = await generateText({ model: model(tee), system: "Be brief.", prompt });
    expect(tee.exchanges.at(-1)!.url).toBe(url("/api/v1/responses"));
    expect(result.finishReason).toBe("stop");
    expect(result.text).toContain(`You said: "${prompt}"`);
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

  it("streamText: finishes with stop and no error part, with the whole text, and the receipt in the raw stream verifies", async () => {
    const tee = await paidFetch();
    const prompt = "a Responses stream through the AI SDK";
    const errors: unknown[] = [];
    const result = streamText({ model: model(tee), prompt, onError: ({ error }) => void errors.push(error) });
    const parts: string[] = [];
    for await (const part of result.fullStream) {
      parts.push(part.type);
      if (part.type === "error") errors.push(part.error);
    }
    expect(errors).toEqual([]);
    expect(await result.finishReason).toBe("stop");
    const text = await result.text;
    expect(text).toContain(`You said: "${prompt}"`);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);

    const exchange = tee.exchanges.at(-1)!;
    expect(exchange.url).toBe(url("/api/v1/responses"));
    const { events } = await readEvents(new Response(await exchange.responseText));
    const carried = receiptOfEvent(events.at(-1));
    if (!carried) throw new Error("no receipt in the raw stream");
    const sent = JSON.parse(exchange.requestBody!) as unknown;
    const verdict = await verifyReceipt({
      receipt: carried.receipt,
      prompt: sent,
      response: text,
      operatorKey: operatorKey(),
      rpc: served.stack.devnet.url,
    });
    expect(verdict.checks).toEqual(allChecks);
  });
});

/** A fetch that adds the replay fields to each JSON body and signs it, as the prepaid route asks, with a credited key. */
async function signingFetch(): Promise<{ tee: TeeingFetch; kp: Ed25519Keypair }> {
  const kp = generateKeypair();
  await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
  const sign = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const target = input instanceof Request ? input.url : String(input);
    const body = JSON.stringify({
      ...(JSON.parse(String(init?.body)) as object),
      nonce: newNonce(),
      timestamp: Date.now(),
    });
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(signRequestHeaders(kp, "POST", target, body))) headers.set(name, value);
    return fetch(target, { ...init, body, headers });
  };
  return { tee: teeingFetch(sign as typeof fetch), kp };
}

describe("POST /api/v1/responses, signed and paid from prepaid credit", () => {
  it("serves a signed request from credit: the Responses object, and a prepaid receipt (no payment block) that verifies", async () => {
    const { tee, kp } = await signingFetch();
    const body = { model: MODEL, input: "a prepaid Responses call" };
    const res = await post(tee.fetch, "/api/v1/responses", body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, unknown>;
    const receipt = receiptOfHeader(res);
    expect(receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
    expect(receipt).not.toHaveProperty("payment");
    expect(answer).toMatchObject({ id: `resp_${receipt.inference_id}`, object: "response", status: "completed" });
    expect(res.headers.get("x-credit-balance-usdc")).not.toBeNull();
    const verdict = await verifyReceipt({ receipt, prompt: body, response: answer, operatorKey: operatorKey() });
    expect(verdict.ok).toBe(true);
  });

  it("refuses a body signed for /api/v1/inference (401 invalid_signature), a replayed nonce (409 nonce_replay) and a JSON format (400)", async () => {
    const kp = generateKeypair();
    await served.stack.credit(kp.publicKeyBase58, 1_000_000n);
    const text = JSON.stringify({
      model: MODEL,
      input: "signed for another path",
      nonce: newNonce(),
      timestamp: Date.now(),
    });
    const wrongPath = await fetch(url("/api/v1/responses"), {
      method: "POST",
      headers: signRequestHeaders(kp, "POST", url("/api/v1/inference"), text),
      body: text,
    });
    expect(wrongPath.status).toBe(401);
    expect(await wrongPath.json()).toMatchObject({ error: { code: "invalid_signature" } });
    const headers = signRequestHeaders(kp, "POST", url("/api/v1/responses"), text);
    expect((await fetch(url("/api/v1/responses"), { method: "POST", headers, body: text })).status).toBe(200);
    const again = await fetch(url("/api/v1/responses"), { method: "POST", headers, body: text });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "nonce_replay" } });
    // A JSON format would be dropped by the prepaid call, so it is refused, naming the field, before any hold.
    const json = JSON.stringify({
      model: MODEL,
      input: "hi",
      text: { format: { type: "json_object" } },
      nonce: newNonce(),
      timestamp: Date.now(),
    });
    const refused = await fetch(url("/api/v1/responses"), {
      method: "POST",
      headers: signRequestHeaders(kp, "POST", url("/api/v1/responses"), json),
      body: json,
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { code: "invalid_request", detail: "text.format", param: "text.format" },
    });
  });

  it("the openai SDK's responses.create({ stream: true }) from credit: the events in order and a receipt that verifies", async () => {
    const { tee, kp } = await signingFetch();
    const client = new OpenAI({ baseURL: url("/api/v1"), apiKey: "unused: signed requests", fetch: tee.fetch });
    const stream = await client.responses.create({
      model: MODEL,
      input: "a prepaid stream from the openai SDK",
      stream: true,
    });
    const types: string[] = [];
    let completed: unknown = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    expect([...new Set(types)]).toEqual(STREAM_ORDER);
    const carried = receiptOfEvent({ type: "response.completed", response: completed });
    if (!carried) throw new Error("no receipt on response.completed");
    expect(carried.receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
    const sent = JSON.parse(tee.exchanges.at(-1)!.requestBody!) as unknown;
    expect(
      (await verifyReceipt({ receipt: carried.receipt, prompt: sent, response: completed, operatorKey: operatorKey() }))
        .ok,
    ).toBe(true);
  });

  it("the AI SDK's streamText with openai(model) from credit: finishes with stop and no error part", async () => {
    const { tee } = await signingFetch();
    const model = createOpenAI({ baseURL: url("/api/v1"), apiKey: "unused: signed requests", fetch: tee.fetch })(MODEL);
    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt: "a prepaid stream through the AI SDK",
      onError: ({ error }) => void errors.push(error),
    });
    for await (const part of result.fullStream) if (part.type === "error") errors.push(part.error);
    expect(errors).toEqual([]);
    expect(await result.finishReason).toBe("stop");
    expect(await result.text).toContain('You said: "a prepaid stream through the AI SDK"');
  });
});
