// The prepaid route on PostgreSQL: signatures, window, nonces, holds, capture and release, the hard cost cap, and
// the 200-concurrent-requests balance race.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chatRoute } from "@/app/api/v1/chat/completions/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { operatorKeypair } from "../support/env";
import { parseReceiptText, verifyReceipt, formatUnitsAsUsdc } from "../../verify";
import { worstCaseCostUnits, findModel } from "../../upstream";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { signDetached } from "../../receipts/sign-receipt";

let stack: PaidStack;
let failing = false;
/** When set, the provider bills far above any hold: the capture is capped at the hold. */
let overbill = false;
let provider: http.Server;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (failing) return res.writeHead(503).end("{}");
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "x",
          choices: [{ message: { content: "remote" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 5, completion_tokens: 2, cost: overbill ? 1 : 0.000002 },
        }),
      );
    });
  });
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  stack = await startPaidStack({
    env: {
      PREPAID_RATE_LIMIT_PER_MINUTE: "100000",
      UPSTREAM_API_KEY: "k",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`,
    },
  });
});
afterAll(async () => {
  await stack?.close();
  provider.closeAllConnections();
  provider.close();
});

async function credit(agent: string, units: bigint): Promise<void> {
  await stack.credit(agent, units);
}

function call(
  kp: Ed25519Keypair,
  body: Record<string, unknown>,
  opts: { raw?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const text = opts.raw ?? JSON.stringify({ nonce: newNonce(), timestamp: Date.now(), ...body });
  const headers = { ...signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text), ...opts.headers };
  return inferenceRoute(
    new Request("http://signet.test/api/v1/inference", { method: "POST", headers, body: text }),
    {},
  );
}

async function ledgerMatches(agent: string): Promise<bigint> {
  const entries = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: agent } });
  const balance =
    (
      await stack.tdb.prisma.balance.findUnique({
        where: { agentPubkey_network: { agentPubkey: agent, network: DEVNET } },
      })
    )?.units ?? 0n;
  expect(entries.reduce((s, e) => s + e.units, 0n)).toBe(balance);
  return balance;
}

const messages = [{ role: "user", content: "prepaid hello" }];
const local = findModel("local/echo-1")!;

describe("POST /api/v1/inference", () => {
  it("serves a signed call from credit: capture the cost, return the rest, and a receipt that verifies", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 100_000n);
    const res = await call(kp, { model: "local/echo-1", messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    expect(parsed.receipt).not.toHaveProperty("payment");
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: messages,
      response: body,
      operatorKey: operatorKeypair().publicKeyBase58,
    });
    expect(verdict.ok).toBe(true);
    const balance = await ledgerMatches(kp.publicKeyBase58);
    const cost = await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({
      where: { id: String(parsed.receipt.inference_id) },
    });
    expect(balance).toBe(100_000n - cost.costUnits);
    expect(res.headers.get("x-credit-balance-usdc")).toBe(formatUnitsAsUsdc(balance));
    expect(
      await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: String(parsed.receipt.inference_id) } }),
    ).toMatchObject({ status: "captured" });
  });

  it("hashes the raw string when `prompt` is given", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 100_000n);
    const res = await call(kp, { model: "local/echo-1", prompt: "What is the capital of France?" });
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: "What is the capital of France?",
      response: await res.json(),
      operatorKey: operatorKeypair().publicKeyBase58,
    });
    expect(verdict.checks.prompt_hash_ok).toBe(true);
    expect(verdict.ok).toBe(true);
  });

  it("refuses a signature over other bytes, another path, or by another key, with 401 invalid_signature", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 100_000n);
    const text = JSON.stringify({ model: "local/echo-1", messages, nonce: newNonce(), timestamp: Date.now() });
    const otherBytes = signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", `${text} `);
    const otherPath = signRequestHeaders(kp, "POST", "http://signet.test/api/v1/chat/completions", text);
    const otherKey = {
      ...signRequestHeaders(generateKeypair(), "POST", "http://signet.test/api/v1/inference", text),
      "X-Agent-Pubkey": kp.publicKeyBase58,
    };
    for (const headers of [otherBytes, otherPath, otherKey]) {
      const res = await inferenceRoute(
        new Request("http://signet.test/api/v1/inference", { method: "POST", headers, body: text }),
        {},
      );
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_signature" } });
    }
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(100_000n);
  });

  it.each([
    ["no headers", { "X-Agent-Pubkey": "", "X-Agent-Signature": "" }, "missing_auth_headers"],
    ["a malformed key", { "X-Agent-Pubkey": "nope" }, "invalid_signature"],
    ["a malformed signature", { "X-Agent-Signature": "0OIl" }, "invalid_signature"],
  ])("refuses %s with 401", async (_label, headers, code) => {
    const res = await call(generateKeypair(), { model: "local/echo-1", messages }, { headers });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code } });
  });

  it("refuses timestamps outside ±60 s with 401 request_expired", async () => {
    const kp = generateKeypair();
    for (const timestamp of [Date.now() - 61_000, Date.now() + 61_000]) {
      const res = await call(kp, { model: "local/echo-1", messages, timestamp });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "request_expired" } });
    }
  });

  it("refuses a reused nonce with 409, and exactly one of concurrent reuses wins", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 1_000_000n);
    const text = JSON.stringify({ model: "local/echo-1", messages, nonce: newNonce(), timestamp: Date.now() });
    const results = await Promise.all(Array.from({ length: 10 }, () => call(kp, {}, { raw: text })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect(await r.json()).toMatchObject({ error: { code: "nonce_replay" } });
    }
    const again = await call(kp, {}, { raw: text });
    expect(again.status).toBe(409);
    await ledgerMatches(kp.publicKeyBase58);
  });

  it.each([
    ["invalid JSON", "{nope"],
    ["a short nonce", JSON.stringify({ model: "local/echo-1", messages, nonce: "short", timestamp: Date.now() })],
    [
      "both messages and prompt",
      JSON.stringify({ model: "local/echo-1", messages, prompt: "x", nonce: newNonce(), timestamp: Date.now() }),
    ],
    [
      "an unknown field",
      JSON.stringify({ model: "local/echo-1", messages, nonce: newNonce(), timestamp: Date.now(), extra: 1 }),
    ],
    ["a string timestamp", JSON.stringify({ model: "local/echo-1", messages, nonce: newNonce(), timestamp: "now" })],
  ])("refuses %s with 400 and no 500", async (_label, raw) => {
    const res = await call(generateKeypair(), {}, { raw });
    expect(res.status).toBe(400);
  });

  it("answers 402 insufficient_credits with the balance when the worst case is not covered", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 3n);
    const res = await call(kp, { model: "local/echo-1", messages });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: { code: "insufficient_credits", balance_usdc: "0.000003" } });
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(3n);
  });

  it("holds the worst case, lowered by max_cost_usdc as a hard cap", async () => {
    const kp = generateKeypair();
    const worst = worstCaseCostUnits(local, messages);
    await credit(kp.publicKeyBase58, worst - 1n);
    expect((await call(kp, { model: "local/echo-1", messages })).status).toBe(402);
    const capped = await call(kp, {
      model: "local/echo-1",
      messages,
      max_cost_usdc: Number(formatUnitsAsUsdc(worst - 10n)),
    });
    expect(capped.status).toBe(200);
    const tooLow = await call(kp, { model: "local/echo-1", messages, max_cost_usdc: 0.000001 });
    expect(tooLow.status).toBe(400);
    await ledgerMatches(kp.publicKeyBase58);
  });

  it("releases the whole hold when the upstream fails", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 1_000_000n);
    failing = true;
    try {
      const res = await call(kp, { model: "openai/gpt-4o-mini", messages });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ error: { code: "upstream_error", balance_usdc: "1" } });
    } finally {
      failing = false;
    }
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(1_000_000n);
    expect(
      await stack.tdb.prisma.creditHold.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } }),
    ).toMatchObject({ status: "released" });
    // and a provider-reported cost is what a later call captures
    const ok = await call(kp, { model: "openai/gpt-4o-mini", messages });
    expect(ok.status).toBe(200);
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(1_000_000n - 2n);
  });

  it("serves exactly 50 of 200 concurrent requests against a balance that covers 50, never below zero", async () => {
    const kp = generateKeypair();
    const remote = findModel("openai/gpt-4o-mini")!;
    const hold = worstCaseCostUnits(remote, messages);
    await credit(kp.publicKeyBase58, hold * 50n);
    overbill = true;
    let results: Response[];
    try {
      results = await Promise.all(
        Array.from({ length: 200 }, () => call(kp, { model: "openai/gpt-4o-mini", messages })),
      );
    } finally {
      overbill = false;
    }
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 402)).toHaveLength(150);
    // Each call was billed above its hold and charged exactly the hold: the hard cap.
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(0n);
    expect(
      await stack.tdb.prisma.creditHold.count({ where: { agentPubkey: kp.publicKeyBase58, status: "held" } }),
    ).toBe(0);
    const logs = await stack.tdb.prisma.inferenceLog.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(logs).toHaveLength(50);
    expect(logs.every((l) => l.costUnits === hold)).toBe(true);
  });
});

describe("POST /api/v1/chat/completions, signed: the same prepaid call at the OpenAI path", () => {
  const CHAT_URL = "http://signet.test/api/v1/chat/completions";
  const chat = (kp: Ed25519Keypair, text: string, signedFor = CHAT_URL) =>
    chatRoute(
      new Request(CHAT_URL, { method: "POST", headers: signRequestHeaders(kp, "POST", signedFor, text), body: text }),
      {},
    );
  const signedBody = (body: Record<string, unknown>) =>
    JSON.stringify({ nonce: newNonce(), timestamp: Date.now(), ...body });

  it("serves the chat body from credit: the chat completion, its receipt, the cost captured and the rest returned", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 100_000n);
    const res = await chat(
      kp,
      signedBody({ model: "local/echo-1", messages, stop: ["never"], max_completion_tokens: 64 }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-response")).toBeNull();
    const body = (await res.json()) as { object: string; choices: { message: { content: string } }[] };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]!.message.content).toContain("prepaid hello");
    const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
    if (!parsed.ok) throw new Error("no receipt");
    expect(parsed.receipt).toMatchObject({ agent_pubkey: kp.publicKeyBase58 });
    expect(parsed.receipt).not.toHaveProperty("payment");
    const verdict = await verifyReceipt({
      receipt: parsed.receipt,
      prompt: messages,
      response: body,
      operatorKey: operatorKeypair().publicKeyBase58,
    });
    expect(verdict.ok).toBe(true);
    const cost = await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({
      where: { id: String(parsed.receipt.inference_id) },
    });
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(100_000n - cost.costUnits);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: kp.publicKeyBase58 } })).toBe(0);
  });

  it("holds for the tool definitions too: a budget that covers the messages but not the tools is refused", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 100_000n);
    const model = "openai/gpt-4o-mini";
    const tools = Array.from({ length: 8 }, (_, i) => ({
      type: "function",
      function: { name: `lookup_${i}`, description: "x".repeat(4_000), parameters: { type: "object", properties: {} } },
    }));
    const promptOnly = worstCaseCostUnits(findModel(model)!, messages, 1);
    const withTools = worstCaseCostUnits(findModel(model)!, [...messages, ...tools], 1);
    expect(withTools).toBeGreaterThan(promptOnly);
    // A budget between the two: enough for the messages and one token, not for the tools as well.
    const budget = formatUnitsAsUsdc((promptOnly + withTools) / 2n);
    const res = await chat(kp, signedBody({ model, messages, tools, max_cost_usdc: Number(budget) }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "invalid_request", detail: "max_cost_usdc" } });
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(100_000n);
  });

  it("refuses a request signed for /api/v1/inference, and shares one nonce space with it: of the same nonce on both routes at once, one is served", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 1_000_000n);
    const text = signedBody({ model: "local/echo-1", messages });
    const otherPath = await chat(kp, text, "http://signet.test/api/v1/inference");
    expect(otherPath.status).toBe(401);
    expect(await otherPath.json()).toMatchObject({ error: { code: "invalid_signature" } });

    const results = await Promise.all([
      chat(kp, text),
      call(kp, {}, { raw: text }),
      chat(kp, text),
      call(kp, {}, { raw: text }),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect(await r.json()).toMatchObject({ error: { code: "nonce_replay" } });
    }
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(1);
    await ledgerMatches(kp.publicKeyBase58);
  });

  it("answers 402 insufficient_credits to a key with no credit, and 400 to a signed body without its replay fields", async () => {
    const broke = await chat(generateKeypair(), signedBody({ model: "local/echo-1", messages }));
    expect(broke.status).toBe(402);
    expect(await broke.json()).toMatchObject({ error: { code: "insufficient_credits" } });
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 100_000n);
    const bare = await chat(kp, JSON.stringify({ model: "local/echo-1", messages }));
    expect(bare.status).toBe(400);
    expect(await ledgerMatches(kp.publicKeyBase58)).toBe(100_000n);
  });
});

describe("receipts of one agent's concurrent calls", () => {
  it("sign each point once: 16 calls at once get points_total 1..16, each receipt stored with its call in the capture's statement", async () => {
    const kp = generateKeypair();
    await credit(kp.publicKeyBase58, 1_000_000n);
    const answers = await Promise.all(Array.from({ length: 16 }, () => call(kp, { model: "local/echo-1", messages })));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    const receipts = answers.map((r) => {
      const parsed = parseReceiptText(r.headers.get("x-service-receipt")!);
      if (!parsed.ok) throw new Error("no receipt");
      return parsed.receipt;
    });
    expect(receipts.map((r) => r.points_total).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    const logged = await stack.tdb.prisma.inferenceLog.findMany({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(logged).toHaveLength(16);
    for (const receipt of receipts) {
      const row = logged.find((l) => l.id === receipt.inference_id)!;
      expect(row.receipt).toEqual(receipt);
    }
    expect(
      (await stack.tdb.prisma.agent.findUniqueOrThrow({ where: { pubkey: kp.publicKeyBase58 } })).pointsTotal,
    ).toBe(16);
    // The ledger sums to the balance, and every hold was captured.
    await ledgerMatches(kp.publicKeyBase58);
    expect(
      await stack.tdb.prisma.creditHold.count({
        where: { agentPubkey: kp.publicKeyBase58, status: { not: "captured" } },
      }),
    ).toBe(0);
  });
});

describe("signed request helpers", () => {
  it("sign over the version tag, the method, the service's origin and path, and the exact body bytes", () => {
    const kp = generateKeypair();
    const h = signRequestHeaders(kp, "POST", "https://signet.example/api/v1/inference", "{}");
    expect(h["X-Agent-Signature"]).toBe(
      signDetached(new TextEncoder().encode("signet-prepaid-v1\nPOST https://signet.example/api/v1/inference\n{}"), kp),
    );
  });
});
