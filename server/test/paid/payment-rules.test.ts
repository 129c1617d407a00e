// Refusals on the paid route: every bad payment is refused with a stable code and nothing moves (no chain transfer,
// no ledger row, no served payment).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const body = { model: "local/echo-1", messages: [{ role: "user", content: "rules" }] };

const usdc = (owner: string, mint = stack.devnet.usdcMint) => stack.devnet.usdcBalance(owner, mint);

async function expectNothingMoved(agent: string, before: bigint) {
  expect(await usdc(agent)).toBe(before);
  expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent } })).toBe(0);
  expect(
    await stack.tdb.prisma.payment.count({
      where: { payer: agent, status: { in: ["settled", "served", "unserved"] } },
    }),
  ).toBe(0);
}

describe("refused payments", () => {
  it.each([
    ["a smaller amount", (r: { amount: string }) => ({ ...r, amount: "999" })],
    ["another recipient", (r: { payTo: string }) => ({ ...r, payTo: generateKeypair().publicKeyBase58 })],
  ])("refuses a transaction that pays %s, crediting nothing", async (_label, tamper) => {
    const agent = await stack.newAgent();
    const before = await usdc(agent.address);
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url, tamper as never);
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: "payment_required", reason: "payment_invalid" });
    await expectNothingMoved(agent.address, before);
  });

  it("refuses a transfer of another mint", async () => {
    const fakeMint = generateKeypair().publicKeyBase58;
    stack.devnet.chain.forgeMint(fakeMint);
    const agent = await stack.newAgent();
    await stack.devnet.fundAccount(agent.address, { usdcUnits: 1_000_000n, mint: fakeMint } as never);
    const before = await usdc(agent.address);
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url, (r) => ({ ...r, asset: fakeMint }));
    const res = await stack.chat({ body, headers: { "X-Payment": header } });
    expect(res.status).toBe(402);
    expect(await usdc(agent.address, fakeMint)).toBe(1_000_000n);
    await expectNothingMoved(agent.address, before);
  });

  it("refuses a payment whose blockhash expired as payment_expired, saying nothing was charged and to pay the new challenge, which is then served", async () => {
    const agent = await stack.newAgent();
    const before = await usdc(agent.address);
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url);
    stack.devnet.chain.expireBlockhash();
    const res = await stack.chat({ body, headers: { "X-Payment": header } });
    expect(res.status).toBe(402);
    const refused = (await res.json()) as {
      code: string;
      reason: string;
      message: string;
      param: unknown;
      detail?: unknown;
    };
    expect(refused).toMatchObject({ code: "payment_required", reason: "payment_expired", param: null });
    expect(refused.message).toMatch(/expired.*nothing was charged.*pay the new challenge/);
    expect(refused.detail).toBeUndefined();
    await expectNothingMoved(agent.address, before);
    const again = await buildPaymentHeader(agent, await challengeOf(res), stack.devnet.url);
    expect((await stack.chat({ body, headers: { "X-Payment": again } })).status).toBe(200);
  });

  it("refuses an agent that cannot cover the price", async () => {
    const agent = await stack.newAgent(500n);
    const challenge = await challengeOf(await stack.chat({ body }));
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url);
    const res = await stack.chat({ body, headers: { "X-Payment": header } });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: "payment_required", reason: "insufficient_balance" });
    await expectNothingMoved(agent.address, 500n);
  });

  it.each([
    ["garbage", "not-a-payment"],
    ["base64 of nonsense", Buffer.from('{"x402Version":2}').toString("base64")],
  ])(
    "answers a malformed payment header (%s) with 402 payment_required, a reason and the challenge",
    async (_label, header) => {
      const res = await stack.chat({ body, headers: { "X-Payment": header } });
      expect(res.status).toBe(402);
      const out = (await res.json()) as Record<string, unknown>;
      expect(out.code).toBe("payment_required");
      expect(typeof out.reason).toBe("string");
      expect(res.headers.get("PAYMENT-REQUIRED")).toBeTruthy();
      expect(out).toMatchObject({ x402Version: 1, accepts: [expect.objectContaining({ scheme: "exact" })] });
    },
  );
});

describe("request validation", () => {
  it.each([
    ["an unknown network", { ...body, network: "testnet" }, 400, "invalid_network"],
    [
      "a Base network this deployment has no RPC for",
      { ...body, network: "base-sepolia" },
      501,
      "network_not_supported",
    ],
    ["an unknown model", { ...body, model: "acme/none" }, 400, "model_not_allowed"],
    ["a remote model without an upstream key", { ...body, model: "openai/gpt-4o-mini" }, 400, "model_not_allowed"],
    ["no messages", { model: "local/echo-1", messages: [] }, 400, "invalid_request"],
    [
      "too many messages",
      { model: "local/echo-1", messages: Array.from({ length: 129 }, () => ({ role: "user", content: "x" })) },
      400,
      "invalid_request",
    ],
    [
      "an overlong message",
      { model: "local/echo-1", messages: [{ role: "user", content: "x".repeat(32_001) }] },
      400,
      "invalid_request",
    ],
    ["a bad role", { model: "local/echo-1", messages: [{ role: "wizard", content: "x" }] }, 400, "invalid_request"],
    ["stream that is not a boolean", { ...body, stream: "yes" }, 400, "invalid_request"],
  ])("refuses %s", async (_label, payload, status, code) => {
    const res = await stack.chat({ body: payload });
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ error: { code } });
  });

  it("refuses an oversized body with 413 and bad JSON with 400", async () => {
    const { POST } = await import("@/app/api/v1/chat/completions/route");
    const big = await POST(
      new Request("http://signet.test/api/v1/chat/completions", { method: "POST", body: "x".repeat(300_000) }),
      {},
    );
    expect(big.status).toBe(413);
    const bad = await POST(
      new Request("http://signet.test/api/v1/chat/completions", { method: "POST", body: "{" }),
      {},
    );
    expect(bad.status).toBe(400);
  });

  it("refuses a call whose worst-case cost exceeds the flat price", async () => {
    await writeSetting(stack.tdb.prisma, stack.config, "X402_FLAT_PRICE_USDC", "0.000001", "test");
    try {
      const res = await stack.chat({ body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "model_not_allowed" } });
    } finally {
      await writeSetting(stack.tdb.prisma, stack.config, "X402_FLAT_PRICE_USDC", "0.001", "test");
    }
  });
});

describe("settings read per request", () => {
  it("issues no challenge when the price is above the ceiling", async () => {
    await stack.tdb.prisma.setting.upsert({
      where: { key: "X402_FLAT_PRICE_USDC" },
      create: { key: "X402_FLAT_PRICE_USDC", value: "0.2" },
      update: { value: "0.2" },
    });
    try {
      const res = await stack.chat({ body });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: { code: "server_misconfigured" } });
      expect(res.headers.get("payment-required")).toBeNull();
    } finally {
      await writeSetting(stack.tdb.prisma, stack.config, "X402_FLAT_PRICE_USDC", "0.001", "test");
    }
  });

  it("takes a price change on the next request, without a restart, and audits it", async () => {
    expect((await challengeOf(await stack.chat({ body }))).accepts[0]!.amount).toBe("1000");
    expect(await writeSetting(stack.tdb.prisma, stack.config, "X402_FLAT_PRICE_USDC", "0.002", "test")).toMatchObject({
      ok: true,
      oldValue: "0.001",
    });
    expect((await challengeOf(await stack.chat({ body }))).accepts[0]!.amount).toBe("2000");
    expect(await writeSetting(stack.tdb.prisma, stack.config, "X402_FLAT_PRICE_USDC", "0.5", "test")).toMatchObject({
      ok: false,
    });
    await writeSetting(stack.tdb.prisma, stack.config, "X402_FLAT_PRICE_USDC", "0.001", "test");
    const audit = await stack.tdb.prisma.settingAudit.findMany({
      where: { key: "X402_FLAT_PRICE_USDC" },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => a.newValue)).toContain("0.002");
    expect(audit.map((a) => a.newValue)).not.toContain("0.5");
  });
});
