// Streaming from an OpenAI-compatible provider, against a local HTTP server that speaks the real SSE
// protocol (OpenRouter's comment lines, a usage chunk with `cost`, `data: [DONE]`), and the paid route's rules when the
// provider fails: before the first byte a plain 502, mid-stream an SSE error event; either way the payment stays as
// credit and one retry with the same header serves it; sent again after that, it gets the stored stream and receipt.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock";
import { operatorKeypair } from "../support/env";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { createUpstream, UpstreamError, type StreamEvent } from "../../upstream";
import { verifyReceipt } from "../../verify";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

type Behaviour = "ok" | "fail_mid" | "drop_mid" | "500" | "stalled";
let behaviour: Behaviour = "ok";
let lastBody: Record<string, unknown> | null = null;
/** The bodies of the requests whose provider stream closed before its end, and who waits for the next one. */
const closedEarly: Record<string, unknown>[] = [];
let onClosedEarly: () => void = () => undefined;
let provider: http.Server;
let baseUrl: string;
let stack: PaidStack;

const MODEL = "openai/gpt-4o-mini";
const chunk = (content: string | null, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "gen-s", model: MODEL, object: "chat.completion.chunk", choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] })}\n\n`;

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const body = (lastBody = JSON.parse(raw) as Record<string, unknown>);
      if (behaviour === "500")
        return res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"internal"}}');
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => {
        if (res.writableFinished) return;
        closedEarly.push(body);
        onClosedEarly();
      });
      res.write(": OPENROUTER PROCESSING\n\n");
      res.write(chunk("Hel"));
      // A dropping provider closes its connection after its last chunk, without ending the stream.
      res.write(chunk("lo"), () => (behaviour === "drop_mid" ? res.socket?.end() : undefined));
      if (behaviour === "fail_mid")
        return res.end(`data: ${JSON.stringify({ error: { code: 502, message: "overloaded" } })}\n\n`);
      if (behaviour === "drop_mid") return;
      const rest = () => {
        res.write(chunk(" there"));
        res.write(chunk(null, "stop"));
        res.write(
          `data: ${JSON.stringify({ id: "gen-s", choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, cost: 0.000021 } })}\n\n`,
        );
        res.end("data: [DONE]\n\n");
      };
      // A stalled provider sends nothing more: its stream ends only when the client leaves or times out.
      if (behaviour !== "stalled") rest();
    });
  });
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/api/v1`;
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "sk-test",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: baseUrl,
      UPSTREAM_PROVIDER_NAME: "openrouter",
    },
  });
});
afterAll(async () => {
  await stack?.close();
  provider.closeAllConnections();
  await new Promise<void>((r) => provider.close(() => r()));
});

const messages = [{ role: "user", content: "stream from the provider" }];

async function collect(
  events: AsyncGenerator<StreamEvent>,
): Promise<{ deltas: string[]; done: StreamEvent | null; error: unknown }> {
  const deltas: string[] = [];
  let done: StreamEvent | null = null;
  try {
    for await (const e of events) {
      if (e.type === "delta") deltas.push(e.content);
      else done = e;
    }
  } catch (err) {
    return { deltas, done, error: err };
  }
  return { deltas, done, error: null };
}

const usdc = (owner: string) => stack.devnet.usdcBalance(owner);

describe("createUpstream().stream() against an OpenAI-compatible provider", () => {
  const upstream = () =>
    createUpstream({ baseUrl, apiKey: "sk-test", timeoutMs: 1_000, providerName: "openrouter", clock: systemClock });

  it("asks for a stream with usage, yields the deltas, and prices with the reported cost", async () => {
    behaviour = "ok";
    const { deltas, done, error } = await collect(upstream().stream({ model: MODEL, messages }));
    expect(error).toBeNull();
    expect(lastBody).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      usage: { include: true },
      max_tokens: 1024,
    });
    expect(deltas).toEqual(["Hel", "lo", " there"]);
    expect(done).toMatchObject({
      type: "done",
      completion: {
        content: "Hello there",
        costUnits: 21n,
        finishReason: "stop",
        upstream: "openrouter",
        usage: { prompt_tokens: 9, completion_tokens: 3 },
      },
    });
  });

  it("throws after the deltas it got when the provider reports an error mid-stream, or drops the connection", async () => {
    for (const b of ["fail_mid", "drop_mid"] as const) {
      behaviour = b;
      const { deltas, done, error } = await collect(upstream().stream({ model: MODEL, messages }));
      expect(deltas).toEqual(["Hel", "lo"]);
      expect(done).toBeNull();
      expect(error).toBeInstanceOf(UpstreamError);
    }
  });

  it("times out a provider that stops sending", async () => {
    behaviour = "stalled";
    const { error } = await collect(upstream().stream({ model: MODEL, messages }));
    expect(error).toMatchObject({ reason: "timeout" });
  });
});

describe("paid route, stream: true, remote provider", () => {
  it("streams the provider's answer; the receipt verifies and states the provider's cost", async () => {
    behaviour = "ok";
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: { model: MODEL, messages } })),
      stack.devnet.url,
    );
    const res = await stack.chat({
      body: { model: MODEL, messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    const answer = await readStreamedAnswer(res.body!);
    expect(answer.text).toBe("Hello there");
    expect(answer.receipt).toMatchObject({ upstream: "openrouter", model: MODEL, cost_usdc: 0.000021 });
    const verdict = await verifyReceipt({
      receipt: answer.receipt!,
      prompt: messages,
      response: answer.chunks,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: stack.devnet.url,
    });
    expect(Object.values(verdict.checks).every(Boolean)).toBe(true);
  });

  it("a mid-stream failure: an SSE error event, the payment stays as credit, and one retry with the same header serves it", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: { model: MODEL, messages } })),
      stack.devnet.url,
    );
    const walletBefore = await usdc(agent.address);

    behaviour = "fail_mid";
    const failed = await readStreamedAnswer(
      (await stack.chat({ body: { model: MODEL, messages, stream: true }, headers: { "PAYMENT-SIGNATURE": header } }))
        .body!,
    );
    expect(failed.text).toBe("Hello");
    expect(failed.receipt).toBeNull();
    expect(failed.done).toBe(false);
    expect(failed.error).toMatchObject({
      code: "upstream_error",
      type: "server_error",
      param: null,
      message: expect.any(String),
      balance_usdc: "0",
      reserved_usdc: "0.01",
    });
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } });
    expect(payment.status).toBe("unserved");
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(0);

    behaviour = "ok";
    const retried = await readStreamedAnswer(
      (await stack.chat({ body: { model: MODEL, messages, stream: true }, headers: { "PAYMENT-SIGNATURE": header } }))
        .body!,
    );
    expect(retried.receipt).not.toBeNull();
    expect(retried.done).toBe(true);
    // Paid once on chain; served once.
    expect(await usdc(agent.address)).toBe(walletBefore - 10_000n);
    expect((await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } })).status).toBe(
      "served",
    );
    const calls = () => stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } });
    const ledger = () => stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address } });
    const before = { calls: await calls(), ledger: await ledger() };
    expect(before.calls).toBe(1);

    // Sent again once served: the stored answer as a stream (its text in one chunk, the final chunk, the same receipt,
    // [DONE]), never a second call (a provider asked again would fail it).
    behaviour = "500";
    const again = await stack.chat({
      body: { model: MODEL, messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    behaviour = "ok";
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/text\/event-stream/);
    const replayed = await readStreamedAnswer(again.body!);
    expect(replayed.text).toBe(retried.text);
    expect(replayed.chunks).toHaveLength(2);
    expect(replayed.done).toBe(true);
    expect(replayed.error).toBeNull();
    expect(replayed.receipt!.inference_id).toBe(retried.receipt!.inference_id);
    expect(replayed.receipt).toEqual(retried.receipt);
    const verdict = await verifyReceipt({
      receipt: replayed.receipt!,
      prompt: messages,
      response: replayed.chunks,
      operatorKey: operatorKeypair().publicKeyBase58,
      rpc: stack.devnet.url,
    });
    expect(Object.values(verdict.checks).every(Boolean)).toBe(true);
    expect({ calls: await calls(), ledger: await ledger() }).toEqual(before);
    expect(await usdc(agent.address)).toBe(walletBefore - 10_000n);
  });

  it("a failure before the first byte is a plain 502 under the same unserved rules", async () => {
    behaviour = "500";
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: { model: MODEL, messages } })),
      stack.devnet.url,
    );
    const res = await stack.chat({
      body: { model: MODEL, messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toMatch(/json/);
    expect(await res.json()).toMatchObject({
      error: { code: "upstream_error", balance_usdc: "0", reserved_usdc: "0.01" },
    });
    expect((await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } })).status).toBe(
      "unserved",
    );
  });

  it("a client that leaves aborts the provider's request", async () => {
    behaviour = "stalled";
    const leaving = [{ role: "user", content: "a client that leaves" }];
    // This request's own provider stream, closed before its end.
    const leavers = () =>
      closedEarly.filter((body) => JSON.stringify(body.messages) === JSON.stringify(leaving)).length;
    const closed = new Promise<void>((resolve) => (onClosedEarly = () => (leavers() > 0 ? resolve() : undefined)));
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: { model: MODEL, messages: leaving } })),
      stack.devnet.url,
    );
    const res = await stack.chat({
      body: { model: MODEL, messages: leaving, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await closed;
    expect(leavers()).toBe(1);
    for (
      let i = 0;
      i < 100 && (await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })) === 0;
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    const log = await stack.tdb.prisma.inferenceLog.findFirstOrThrow({ where: { agentPubkey: agent.address } });
    expect(log).toMatchObject({ status: "aborted", receipt: null, upstream: "openrouter" });
  });
});
