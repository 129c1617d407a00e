// Streaming with receipts on both routes, with the built-in model streaming token by token: the payment
// settles before the first byte, chunks concatenate to the receipt's response hash, the receipt event comes before
// [DONE] and is stored for GET /api/v1/receipts/<id>; a client that leaves mid-stream is charged what was produced,
// the call is logged `aborted`, and no receipt is issued.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { GET as receiptRoute } from "@/app/api/v1/receipts/[id]/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { readStreamedAnswer, sseData } from "../../upstream/read-sse";
import { answerLocally } from "../../upstream/local-model";
import { costFromTokens, findModel } from "../../upstream/model-catalog";
import { usdcNumberToUnits, verifyReceipt } from "../../verify";
import { buildPaymentHeader, challengeOf, CHAT_URL, startPaidStack, type PaidStack } from "../support/paid-stack";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
let stack: PaidStack;
beforeAll(async () => {
  // 20 ms between tokens: long enough to leave mid-stream, short enough for a quick suite.
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "20" } });
});
afterAll(async () => stack?.close());

const messages = [{ role: "user", content: "stream me a receipt, please" }];
const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};

async function lookup(id: string): Promise<Response> {
  return receiptRoute(new Request(`http://signet.test/api/v1/receipts/${id}`), { params: Promise.resolve({ id }) });
}

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("condition never held");
}

async function prepaidAgent(units: bigint) {
  const kp = generateKeypair();
  await stack.credit(kp.publicKeyBase58, units);
  return kp;
}

function prepaidStream(kp: ReturnType<typeof generateKeypair>, prompt: string) {
  const text = JSON.stringify({
    model: "local/echo-1",
    prompt,
    nonce: newNonce(),
    timestamp: Date.now(),
    stream: true,
  });
  return inferenceRoute(
    new Request("http://signet.test/api/v1/inference", {
      method: "POST",
      headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
      body: text,
    }),
    {},
  );
}

describe("paid route, stream: true", () => {
  it("settles before the first byte and ends with a receipt that verifies over the chunks and over the text", async () => {
    const agent = await stack.newAgent();
    const res = await stack.payingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const settlement = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: agent.address, network: DEVNET });
    expect(res.headers.get("x-service-receipt")).toBeNull();

    const answer = await readStreamedAnswer(res.body!);
    expect(answer.done).toBe(true);
    expect(answer.error).toBeNull();
    expect(answer.chunks.length).toBeGreaterThan(5);
    expect(answer.text).toContain("stream me a receipt, please");
    const receipt = answer.receipt!;
    expect(receipt).toMatchObject({ agent_pubkey: agent.address, payment: { tx_signature: settlement.transaction } });
    // Every chunk carries the receipt's inference id, as the non-streamed body's id does.
    expect(answer.chunks.every((c) => (c as { id: string }).id === `chatcmpl-${receipt.inference_id}`)).toBe(true);

    const operatorKey = operatorKeypair().publicKeyBase58;
    for (const response of [answer.chunks, answer.text]) {
      const verdict = await verifyReceipt({ receipt, prompt: messages, response, operatorKey, rpc: stack.devnet.url });
      expect(verdict.checks).toEqual(allChecks);
    }
    const tampered = await verifyReceipt({
      receipt,
      prompt: messages,
      response: `${answer.text}!`,
      operatorKey,
      offline: true,
    });
    expect(tampered.checks.response_hash_ok).toBe(false);

    // Stored with the log row, so the lookup returns the same receipt.
    const stored = await lookup(String(receipt.inference_id));
    expect(stored.status).toBe(200);
    expect(await stored.json()).toEqual(receipt);
    const log = await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({ where: { id: String(receipt.inference_id) } });
    expect(log.status).toBe("served");
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { txSignature: settlement.transaction } });
    expect(payment.status).toBe("served");
  });

  it("puts the final chunk with finish_reason and usage before the receipt chunk, and [DONE] last", async () => {
    const agent = await stack.newAgent();
    const res = await stack.payingFetch(agent)(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages, stream: true }),
    });
    const events: unknown[] = [];
    for await (const data of sseData(res.body!)) events.push(data);
    expect(events.at(-1)).toBe("[DONE]");
    // The receipt rides on a chunk without choices or usage, with the answer's id, so strict chunk validators pass it.
    const answerId = (events[0] as { id: string }).id;
    expect(events.at(-2)).toEqual({
      id: answerId,
      object: "chat.completion.chunk",
      created: expect.any(Number),
      model: "local/echo-1",
      choices: [],
      service_receipt: {
        object: "service.receipt",
        receipt: expect.any(Object),
        log_proof_url: expect.any(String),
        x402_receipt: { format: "jws", signature: expect.any(String) },
      },
    });
    expect(events.at(-3)).toMatchObject({
      object: "chat.completion.chunk",
      choices: [{ delta: {}, finish_reason: "stop" }],
      usage: { completion_tokens: expect.any(Number) },
    });
    expect(events[0]).toMatchObject({ choices: [{ delta: { role: "assistant" }, finish_reason: null }] });
  });

  it("a client that leaves mid-stream: the upstream stops, the produced text is debited, the log says aborted, no receipt", async () => {
    const agent = await stack.newAgent();
    const challenge = await challengeOf(await stack.chat({ body: { model: "local/echo-1", messages } }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url);
    const res = await stack.chat({
      body: { model: "local/echo-1", messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the first chunk, then the client goes away
    await reader.cancel();

    const payment = await eventually(
      () => stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } }),
      (p) => p.status === "served",
    );
    const log = await eventually(
      () => stack.tdb.prisma.inferenceLog.findUnique({ where: { id: payment.inferenceId! } }),
      (l) => l !== null,
    );
    expect(log).toMatchObject({ status: "aborted", receipt: null, route: "chat" });
    // Charged more than nothing (the prompt and what was produced) and less than the whole answer would have cost.
    const full = costFromTokens(findModel("local/echo-1")!, answerLocally(messages, 256).usage);
    expect(log!.costUnits).toBeGreaterThan(0n);
    expect(log!.costUnits).toBeLessThan(full);
    const entries = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: agent.address } });
    const balance = await stack.tdb.prisma.balance.findUniqueOrThrow({
      where: { agentPubkey_network: { agentPubkey: agent.address, network: DEVNET } },
    });
    expect(entries.reduce((s, e) => s + e.units, 0n)).toBe(balance.units);
    expect(balance.units).toBe(1000n - log!.costUnits);
    expect((await lookup(payment.inferenceId!)).status).toBe(404);
    // The payment was used: the same header again is a replay.
    const again = await stack.chat({
      body: { model: "local/echo-1", messages, stream: true },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "payment_replay" } });
  });
});

describe("prepaid route, stream: true", () => {
  it("holds, streams, captures, and ends with a receipt that verifies; the balance moves by the receipt's cost", async () => {
    const kp = await prepaidAgent(1_000_000n);
    const res = await prepaidStream(kp, "prepaid stream");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const answer = await readStreamedAnswer(res.body!);
    expect(answer.done).toBe(true);
    const receipt = answer.receipt!;
    const verdict = await verifyReceipt({
      receipt,
      prompt: { prompt: "prepaid stream" },
      response: answer.chunks,
      operatorKey: operatorKeypair().publicKeyBase58,
      offline: true,
    });
    expect(verdict.checks).toMatchObject({ prompt_hash_ok: true, response_hash_ok: true, service_signature_ok: true });
    const balance = await stack.tdb.prisma.balance.findUniqueOrThrow({
      where: { agentPubkey_network: { agentPubkey: kp.publicKeyBase58, network: DEVNET } },
    });
    expect(balance.units).toBe(1_000_000n - usdcNumberToUnits(receipt.cost_usdc)!);
    const hold = await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: String(receipt.inference_id) } });
    expect(hold.status).toBe("captured");
    expect((await lookup(String(receipt.inference_id))).status).toBe(200);
  });

  it("a client that leaves mid-stream is charged what was produced, capped by the hold, with no receipt", async () => {
    const kp = await prepaidAgent(1_000_000n);
    const res = await prepaidStream(kp, "leave early");
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    const log = await eventually(
      () => stack.tdb.prisma.inferenceLog.findFirst({ where: { agentPubkey: kp.publicKeyBase58 } }),
      (l) => l !== null,
    );
    expect(log).toMatchObject({ status: "aborted", receipt: null, route: "inference" });
    expect(log!.costUnits).toBeGreaterThan(0n);
    const hold = await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: log!.id } });
    expect(hold.status).toBe("captured");
    const entries = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    const balance = await stack.tdb.prisma.balance.findUniqueOrThrow({
      where: { agentPubkey_network: { agentPubkey: kp.publicKeyBase58, network: DEVNET } },
    });
    expect(entries.reduce((s, e) => s + e.units, 0n)).toBe(balance.units);
    expect(balance.units).toBe(1_000_000n - log!.costUnits);
    // No point for an aborted call.
    const agent = await stack.tdb.prisma.agent.findUnique({ where: { pubkey: kp.publicKeyBase58 } });
    expect(agent?.pointsTotal ?? 0).toBe(0);
  });
});

describe("prepaid route, stream_options.include_usage", () => {
  it("ends with OpenAI's usage chunk (choices: []) after the finish chunk, and the receipt still verifies", async () => {
    const kp = await prepaidAgent(1_000_000n);
    const text = JSON.stringify({
      model: "local/echo-1",
      prompt: "usage please",
      nonce: newNonce(),
      timestamp: Date.now(),
      stream: true,
      stream_options: { include_usage: true },
    });
    const res = await inferenceRoute(
      new Request("http://signet.test/api/v1/inference", {
        method: "POST",
        headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
        body: text,
      }),
      {},
    );
    expect(res.status).toBe(200);
    const events: { choices?: { finish_reason?: string | null }[]; usage?: unknown; service_receipt?: unknown }[] = [];
    for await (const data of sseData(res.body!)) if (data !== "[DONE]") events.push(data as (typeof events)[number]);
    const finish = events.findIndex((e) => e.choices?.[0]?.finish_reason);
    const usage = events.findIndex((e) => e.choices?.length === 0 && e.usage);
    expect(finish).toBeGreaterThanOrEqual(0);
    expect(events[finish]!.usage ?? null).toBeNull();
    expect(usage).toBeGreaterThan(finish);
    expect(events.at(-1)!.service_receipt).toBeDefined();
  });
});
