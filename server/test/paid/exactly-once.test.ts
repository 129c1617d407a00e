// Exactly-once money on the paid route: a served payment sent again with the same request gets its stored answer and
// moves nothing, and with another request is refused; 50 concurrent sends of one payment header give one settlement,
// one credit and one inference; an upstream failure after settlement keeps the payment as credit and one retry with
// the same header serves it without settling again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completionAnswer, failureAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

/** A local OpenAI-compatible provider that fails while `failing` is set. */
let failing = false;
let providerCalls = 0;
let provider: FakeProvider;
let stack: PaidStack;

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) => {
    providerCalls++;
    return failing
      ? failureAnswer
      : completionAnswer(body.model, "remote answer", { prompt_tokens: 10, completion_tokens: 3, cost: 0.000045 });
  });
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      UPSTREAM_API_KEY: "test-key",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_PROVIDER_NAME: "openrouter",
    },
  });
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});

const local = { model: "local/echo-1", messages: [{ role: "user", content: "once" }] };
const remote = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "remote" }] };

const usdc = (owner: string) => stack.devnet.usdcBalance(owner);

/** What a served or replayed call may move: the agent's wallet, its ledger entries, its logged calls. */
async function movedFor(agent: string) {
  return {
    usdc: await usdc(agent),
    ledger: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent } }),
    calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent } }),
  };
}

const receiptHeader = (res: Response) =>
  JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString()) as Record<string, unknown>;

async function ledgerMatchesBalance(agent: string): Promise<void> {
  const entries = await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: agent } });
  const balances = await stack.tdb.prisma.balance.findMany({ where: { agentPubkey: agent } });
  expect(entries.reduce((s, e) => s + e.units, 0n)).toBe(balances.reduce((s, b) => s + b.units, 0n));
}

describe("exactly-once payments", () => {
  it("gives a served payment sent again its stored answer, moving nothing", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: local })),
      stack.devnet.url,
    );
    const served = await stack.chat({ body: local, headers: { "X-Payment": header } });
    expect(served.status).toBe(200);
    expect(served.headers.get("x-answer-replayed")).toBeNull();
    const answer = (await served.json()) as Record<string, unknown>;
    const before = await movedFor(agent.address);
    expect(before.calls).toBe(1);
    for (const name of ["X-Payment", "PAYMENT-SIGNATURE"]) {
      const again = await stack.chat({ body: local, headers: { [name]: header } });
      expect(again.status).toBe(200);
      expect(again.headers.get("x-answer-replayed")).toBe("true");
      expect(receiptHeader(again)).toEqual(receiptHeader(served));
      expect(await again.json()).toEqual(answer);
    }
    expect(await movedFor(agent.address)).toEqual(before);
    await ledgerMatchesBalance(agent.address);
  });

  it("refuses a served payment's header sent with another body with 409 payment_request_mismatch, moving nothing", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: local })),
      stack.devnet.url,
    );
    expect((await stack.chat({ body: local, headers: { "X-Payment": header } })).status).toBe(200);
    const before = await movedFor(agent.address);
    const other = await stack.chat({
      body: { ...local, messages: [{ role: "user", content: "another question" }] },
      headers: { "X-Payment": header },
    });
    expect(other.status).toBe(409);
    expect(other.headers.get("x-answer-replayed")).toBeNull();
    expect(await other.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await movedFor(agent.address)).toEqual(before);
    await ledgerMatchesBalance(agent.address);
  });

  it("serves 50 concurrent sends of one payment header exactly once", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: local })),
      stack.devnet.url,
    );
    const results = await Promise.all(
      Array.from({ length: 50 }, () => stack.chat({ body: local, headers: { "X-Payment": header } })),
    );
    // One send is served. Each other is refused while that one is processed, or, arriving after it was served, gets
    // its stored answer: never a second call.
    const served = results.filter((r) => r.status === 200 && r.headers.get("x-answer-replayed") === null);
    expect(served).toHaveLength(1);
    const servedId = ((await served[0]!.json()) as { id: string }).id;
    for (const other of results.filter((r) => r !== served[0])) {
      if (other.status === 200) {
        expect(other.headers.get("x-answer-replayed")).toBe("true");
        expect(((await other.json()) as { id: string }).id).toBe(servedId);
      } else {
        expect(other.status).toBe(409);
        expect(await other.json()).toMatchObject({ error: { code: "payment_replay" } });
      }
    }
    expect(await usdc(agent.address)).toBe(1_000_000n - 1000n);
    expect(
      stack.devnet.chain
        .signaturesFor(agent.address)
        .filter(
          (t) =>
            t.meta.preTokenBalances.length > 0 && t.accountKeys.some((k) => k.pubkey === agent.address && k.signer),
        ),
    ).toHaveLength(1);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address } })).toBe(1);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address, kind: "payment_credit" } }),
    ).toBe(1);
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(1);
    await ledgerMatchesBalance(agent.address);
  });

  it("serves 12 different payments of one new agent sent at once, each exactly once (first-call rows race)", async () => {
    const agent = await stack.newAgent();
    const challenge = await challengeOf(await stack.chat({ body: local }));
    const headers: string[] = [];
    for (let i = 0; i < 12; i++) headers.push(await buildPaymentHeader(agent, challenge, stack.devnet.url));
    const results = await Promise.all(headers.map((h) => stack.chat({ body: local, headers: { "X-Payment": h } })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(await usdc(agent.address)).toBe(1_000_000n - 12n * 1000n);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address, kind: "payment_credit" } }),
    ).toBe(12);
    const points = await Promise.all(
      results.map(
        async (r) =>
          (
            JSON.parse(Buffer.from(r.headers.get("x-service-receipt")!, "base64").toString()) as {
              points_total: number;
            }
          ).points_total,
      ),
    );
    expect(points.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    await ledgerMatchesBalance(agent.address);
  });

  it("keeps a settled payment as credit when the upstream fails, then serves one retry without settling again", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: remote })),
      stack.devnet.url,
    );
    // The provider fails this call only: the flag goes back even when the call throws, so no later test meets a
    // provider still failing.
    failing = true;
    let failed: Response;
    try {
      failed = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    } finally {
      failing = false;
    }
    expect(failed.status).toBe(502);
    const failure = (await failed.json()) as { error: Record<string, unknown> };
    // The settled payment's credit stays reserved for its retry: none of it is spendable meanwhile.
    expect(failure).toMatchObject({ error: { code: "upstream_error", balance_usdc: "0", reserved_usdc: "0.001" } });
    expect(typeof failure.error.tx_signature).toBe("string");
    expect(JSON.stringify(failure)).not.toContain("boom");
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } });
    expect(payment.status).toBe("unserved");
    expect(await usdc(agent.address)).toBe(1_000_000n - 1000n);

    const callsBefore = providerCalls;
    const retried = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    expect(retried.status).toBe(200);
    expect(providerCalls).toBe(callsBefore + 1);
    const retriedAnswer = (await retried.json()) as { id: string; choices: { message: { content: string } }[] };
    expect(retriedAnswer.choices[0]!.message.content).toBe("remote answer");
    expect(await usdc(agent.address)).toBe(1_000_000n - 1000n); // no second settlement
    expect((await stack.tdb.prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).status).toBe("served");
    // The provider's reported cost (0.000045 USDC) is what was charged: the 1000-unit hold less the 955 returned.
    expect(
      (
        await stack.tdb.prisma.ledgerEntry.findFirstOrThrow({
          where: { agentPubkey: agent.address, kind: "hold_release" },
        })
      ).units,
    ).toBe(955n);
    expect((await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: agent.address } })).units).toBe(
      955n,
    );
    await ledgerMatchesBalance(agent.address);

    // Sent again once served: the stored answer, without asking the provider or charging again.
    const before = await movedFor(agent.address);
    const third = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    expect(third.status).toBe(200);
    expect(third.headers.get("x-answer-replayed")).toBe("true");
    expect(receiptHeader(third)).toEqual(receiptHeader(retried));
    expect(await third.json()).toMatchObject({
      id: retriedAnswer.id,
      choices: [{ message: { content: "remote answer" } }],
    });
    expect(providerCalls).toBe(callsBefore + 1);
    expect(await movedFor(agent.address)).toEqual(before);
  });

  it("counts points per served call in the receipts", async () => {
    const agent = await stack.newAgent();
    const points: number[] = [];
    for (let i = 0; i < 2; i++) {
      const header = await buildPaymentHeader(
        agent,
        await challengeOf(await stack.chat({ body: local })),
        stack.devnet.url,
      );
      const res = await stack.chat({ body: local, headers: { "X-Payment": header } });
      const receipt = JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString()) as {
        points_total: number;
      };
      points.push(receipt.points_total);
    }
    expect(points).toEqual([1, 2]);
  });
});
