// A provider's streamed tool calls, against the fake provider (a real local HTTP server streaming OpenAI's
// `delta.tool_calls` fragments): the upstream yields the fragments as they come and the whole calls at the end; the
// paid route passes them on as `chat.completion.chunk` deltas with `finish_reason: "tool_calls"`; the receipt means
// what a plain answer's does (its response hash covers the text only, so the streamed and the plain answer to the same
// provider answer hash alike); the cost is the provider's, or our own count of the text and tool calls produced; and a
// streamed answer sent again from storage carries its tool calls whole.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock";
import { operatorKeypair } from "../support/env";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { createUpstream, UpstreamError, type StreamEvent } from "../../upstream";
import { estimateUsage } from "../../upstream/local-model";
import { costFromTokens, findModel } from "../../upstream/model-catalog";
import { parseReceiptText, sha256Hex, verifyReceipt } from "../../verify";
import { startFakeProvider, streamOf, toolCallAnswer, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

const MODEL = "openai/gpt-4o-mini";
const calls = [
  { id: "call_w", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo","unit":"celsius"}' } },
  { id: "call_t", type: "function", function: { name: "get_time", arguments: '{"zone":"Europe/Oslo"}' } },
];
const messages = [{ role: "user", content: "Weather and time in Oslo?" }];

/** Whether the provider's stream ends with a usage chunk (with OpenRouter's cost) or reports no usage at all. */
let withUsage = true;
/** Whether the provider's first tool-call fragment leaves out the call's id. */
let withoutId = false;
let provider: FakeProvider;
let stack: PaidStack;

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) => {
    const answer = toolCallAnswer(body.model, calls, { prompt_tokens: 30, completion_tokens: 24, cost: 0.000033 });
    if (!body.stream) return answer;
    const streamed = streamOf(answer, 4);
    if (withoutId)
      return {
        ...streamed,
        events: JSON.parse(JSON.stringify(streamed.events).replace('"id":"call_w",', "")) as unknown[],
      };
    return withUsage
      ? streamed
      : {
          ...streamed,
          events: streamed.events.filter(
            (e) => typeof e === "string" || (e as { usage?: unknown }).usage === undefined,
          ),
        };
  });
  stack = await startPaidStack({
    timing: "instant",
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "sk-test",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_PROVIDER_NAME: "openrouter",
    },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});

/** A tool-call delta's fragments, merged by index as OpenAI's clients merge them. */
function mergeToolCalls(chunks: unknown[]): unknown[] {
  const merged: { id?: string; type?: string; function: { name: string; arguments: string } }[] = [];
  for (const chunk of chunks as {
    choices: {
      delta?: {
        tool_calls?: { index: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
      };
    }[];
  }[]) {
    for (const d of chunk.choices[0]?.delta?.tool_calls ?? []) {
      const call = (merged[d.index] ??= { function: { name: "", arguments: "" } });
      if (d.id) call.id = d.id;
      if (d.type) call.type = d.type;
      if (d.function?.name) call.function.name += d.function.name;
      if (d.function?.arguments) call.function.arguments += d.function.arguments;
    }
  }
  return merged;
}

async function paidHeader(): Promise<string> {
  const agent = await stack.newAgent();
  return buildPaymentHeader(
    agent,
    await challengeOf(await stack.chat({ body: { model: MODEL, messages } })),
    stack.devnet.url,
  );
}

describe("createUpstream().stream() with a provider that streams tool calls", () => {
  it("yields the fragments as they come and a completion with the whole calls, no text, the provider's finish reason and cost", async () => {
    withUsage = true;
    const upstream = createUpstream({
      baseUrl: provider.url,
      apiKey: "sk-test",
      timeoutMs: 2_000,
      providerName: "openrouter",
      clock: systemClock,
    });
    const events: StreamEvent[] = [];
    for await (const event of upstream.stream({ model: MODEL, messages })) events.push(event);
    const fragments = events.flatMap((e) => (e.type === "tool_calls" ? e.toolCalls : []));
    expect(fragments[0]).toEqual({
      index: 0,
      id: "call_w",
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    expect(fragments.filter((f) => f.index === 1)[0]).toMatchObject({ id: "call_t", function: { name: "get_time" } });
    expect(fragments.length).toBeGreaterThan(10);
    expect(events.some((e) => e.type === "delta")).toBe(false);
    const done = events.at(-1);
    expect(done).toMatchObject({
      type: "done",
      completion: {
        content: "",
        toolCalls: calls,
        finishReason: "tool_calls",
        costUnits: 33n,
        usage: { prompt_tokens: 30, completion_tokens: 24 },
      },
    });
  });

  it("refuses a tool call whose first fragment has no id, as a plain answer's tool call without one is refused", async () => {
    withoutId = true;
    try {
      const upstream = createUpstream({
        baseUrl: provider.url,
        apiKey: "sk-test",
        timeoutMs: 2_000,
        providerName: "openrouter",
        clock: systemClock,
      });
      const events: StreamEvent[] = [];
      const error = await (async () => {
        for await (const event of upstream.stream({ model: MODEL, messages })) events.push(event);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ reason: "bad_response" });
      expect(events.some((e) => e.type === "tool_calls" || e.type === "done")).toBe(false);
    } finally {
      withoutId = false;
    }
  });
});

describe("paid route, stream: true, a provider answer that calls tools", () => {
  it("passes the tool calls on as chunk deltas with finish_reason tool_calls; the receipt hashes the text as the plain answer's does, and verifies", async () => {
    withUsage = true;
    const plain = await stack.chat({
      body: { model: MODEL, messages },
      headers: { "PAYMENT-SIGNATURE": await paidHeader() },
    });
    expect(plain.status).toBe(200);
    const plainBody = (await plain.json()) as {
      choices: { message: { content: string; tool_calls: unknown[] }; finish_reason: string }[];
    };
    expect(plainBody.choices[0]).toMatchObject({
      message: { content: "", tool_calls: calls },
      finish_reason: "tool_calls",
    });
    const plainReceipt = parseReceiptText(plain.headers.get("x-service-receipt")!);
    if (!plainReceipt.ok) throw new Error("no receipt on the plain answer");

    const res = await stack.chat({
      body: { model: MODEL, messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": await paidHeader() },
    });
    expect(res.status).toBe(200);
    const answer = await readStreamedAnswer(res.body!);
    expect(answer.error).toBeNull();
    expect(answer.done).toBe(true);
    const deltas = answer.chunks as {
      choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
      usage?: unknown;
    }[];
    expect(deltas[0]!.choices[0]!.delta).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ index: 0, id: "call_w", type: "function", function: { name: "get_weather", arguments: "" } }],
    });
    expect(mergeToolCalls(answer.chunks)).toEqual(calls);
    expect(deltas.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
    expect(answer.text).toBe("");

    // The response hash covers the text, plain or streamed: both are the hash of "" here, and they are equal.
    expect(answer.receipt!.response_hash).toBe(plainReceipt.receipt.response_hash);
    expect(answer.receipt!.response_hash).toBe(sha256Hex(""));
    // The provider's reported cost, the same either way.
    expect(answer.receipt!.cost_usdc).toBe(0.000033);
    expect(plainReceipt.receipt.cost_usdc).toBe(0.000033);
    const verdict = await verifyReceipt({
      receipt: answer.receipt!,
      prompt: messages,
      response: answer.chunks,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: stack.devnet.url,
    });
    expect(verdict.checks).toEqual({
      prompt_hash_ok: true,
      response_hash_ok: true,
      service_signature_ok: true,
      payment_on_chain_ok: true,
      payer_matches: true,
    });
  });

  it("without a usage report, the cost is our own count of the prompt and of the tool calls produced, at the catalogue prices", async () => {
    withUsage = false;
    try {
      const answer = await readStreamedAnswer(
        (
          await stack.chat({
            body: { model: MODEL, messages, stream: true },
            headers: { "PAYMENT-SIGNATURE": await paidHeader() },
          })
        ).body!,
      );
      expect(answer.done).toBe(true);
      const produced = calls.map((c) => ` ${c.function.name} ${c.function.arguments}`).join("");
      const usage = estimateUsage(messages, produced);
      expect(usage.completion_tokens).toBeGreaterThan(10);
      const expected = costFromTokens(findModel(MODEL)!, usage);
      const logged = await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({
        where: { id: String(answer.receipt!.inference_id) },
      });
      expect(logged.costUnits).toBe(expected);
    } finally {
      withUsage = true;
    }
  });

  it("sent again with the same payment, the stored answer streams its tool calls whole, with the same receipt", async () => {
    withUsage = true;
    const header = await paidHeader();
    const first = await readStreamedAnswer(
      (await stack.chat({ body: { model: MODEL, messages, stream: true }, headers: { "PAYMENT-SIGNATURE": header } }))
        .body!,
    );
    const again = await stack.chat({
      body: { model: MODEL, messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    const replayed = await readStreamedAnswer(again.body!);
    expect(replayed.receipt).toEqual(first.receipt);
    expect(mergeToolCalls(replayed.chunks)).toEqual(calls);
    expect((replayed.chunks.at(-1) as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason).toBe(
      "tool_calls",
    );
  });
});
