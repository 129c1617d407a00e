// A payment serves only the request that paid it. On PostgreSQL with real local chains, a payment that waits (its
// settlement pending, or settled and unserved) is public once its transfer lands: anyone can read the transaction. A
// stranger who wraps it in a payload of his own, or re-sends the payer's header with another body or another network,
// is refused 409 payment_request_mismatch and nothing moves; the payer's own retry is served once; a later send of the
// same header and body gets the stored answer and the same receipt again, never a second service.
import { testConfig } from "../support/env";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { createFacilitator, type Facilitator } from "../../facilitator/create-facilitator";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { parseReceiptText } from "../../verify";
import { randomUUID } from "node:crypto";
import { createPayingFetch } from "../../agent/paying-fetch";
import { purgeKeptAnswers } from "../../payments/payment-store";
import { chatRequestDigest } from "../../x402/request-digest";
import { paymentIdempotencyKey } from "../../x402/idempotency-key";
import { authorizationHeader } from "../support/eip3009-header";
import { completionAnswer, failureAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, CHAT_URL, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { landDirectly, until } from "../support/land-directly";

const victimBody = { model: "local/echo-1", messages: [{ role: "user", content: "the victim's own question" }] };
const attackerBody = { model: "local/echo-1", messages: [{ role: "user", content: "the attacker's question" }] };
const env = { X402_FLAT_PRICE_USDC: "0.001", SETTLEMENT_CONFIRM_WAIT_MS: "600" };

/** What anyone can read from the cluster: a landed transaction's wire bytes, over the public RPC. */
async function publicWire(rpcUrl: string, signature: string): Promise<string> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getTransaction",
      params: [signature, { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
    }),
  });
  const body = (await res.json()) as { result: { transaction: [string, string] } | null };
  if (!body.result) throw new Error(`transaction ${signature} is not readable yet`);
  return body.result.transaction[0];
}

/** An x402 v2 payment header around someone else's public transaction, for the attacker's own challenge. */
function wrapPublicTransaction(challenge: PaymentRequired, wire: string): string {
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: challenge.resource,
    accepted: challenge.accepts[0]!,
    payload: { transaction: wire },
  });
}

function receiptOf(res: { headers: Headers }): Record<string, unknown> {
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  return parsed.receipt as Record<string, unknown>;
}
const promptHashOf = (res: { headers: Headers }) => receiptOf(res).prompt_hash;

describe("a payment waiting for its retry, under a cluster that drops every send", () => {
  let stack: PaidStack;
  let facilitator: Facilitator;
  beforeAll(async () => {
    stack = await startPaidStack({
      timing: "real",
      mainnet: true,
      env,
      devnet: { timing: "real", slotMs: 25, faults: { seed: 7, dropSendRate: 1 } },
    });
    facilitator = await createFacilitator(testConfig());
  });
  afterAll(async () => stack?.close());

  const pendingPayment = async () => {
    const victim = await stack.newAgent();
    const header = await buildPaymentHeader(
      victim,
      await challengeOf(await stack.chat({ body: victimBody })),
      stack.devnet.url,
    );
    const first = await stack.chat({ body: victimBody, headers: { "X-Payment": header } });
    expect(first.status).toBe(502);
    const { transaction } = ((await first.json()) as { error: { transaction: string } }).error;
    expect(await landDirectly(stack, facilitator, header)).toBe(transaction);
    return { victim, header, transaction };
  };
  const callsLogged = () => stack.tdb.prisma.inferenceLog.count();

  it("refuses a stranger who wraps the landed public transaction with his own prompt; the payer's retry is served", async () => {
    const { victim, header, transaction } = await pendingPayment();
    const wire = await publicWire(stack.devnet.url, transaction);
    const forged = wrapPublicTransaction(await challengeOf(await stack.chat({ body: attackerBody })), wire);
    const logged = await callsLogged();

    const attack = await stack.chat({ body: attackerBody, headers: { "X-Payment": forged } });
    expect(attack.status).toBe(409);
    expect(await attack.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await callsLogged()).toBe(logged);
    expect(await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: victim.address } })).toMatchObject({
      status: "pending",
    });

    const retry = await stack.chat({ body: victimBody, headers: { "X-Payment": header } });
    expect(retry.status).toBe(200);
    expect(await callsLogged()).toBe(logged + 1);
    const receiptHeader = retry.headers.get("x-service-receipt");
    const served = (await retry.json()) as { id: string };

    // The same request again: the stored answer and the same receipt, not a second call.
    const again = await stack.chat({ body: victimBody, headers: { "X-Payment": header } });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(receiptOf(again)).toEqual(receiptOf({ headers: new Headers({ "x-service-receipt": receiptHeader! }) }));
    expect(((await again.json()) as { id: string }).id).toBe(served.id);
    // The stranger after the call was served: still refused with his own prompt.
    const late = await stack.chat({ body: attackerBody, headers: { "X-Payment": forged } });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await callsLogged()).toBe(logged + 1);
    expect(
      (await stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: victim.address, kind: "payment_credit" } }))
        .length,
    ).toBe(1);
    expect(promptHashOf(again)).toBe(promptHashOf(retry));

    // Past the retention, the sweeper's purge drops the kept answer: the same request is then a plain replay.
    expect(await purgeKeptAnswers(stack.tdb.prisma, 0, 100)).toBeGreaterThanOrEqual(1);
    const purged = await stack.chat({ body: victimBody, headers: { "X-Payment": header } });
    expect(purged.status).toBe(409);
    expect(await purged.json()).toMatchObject({ error: { code: "payment_replay" } });
    expect(await callsLogged()).toBe(logged + 1);
  });

  it("refuses the payer's own header re-sent for mainnet and another model: the payment is planned on its own network", async () => {
    await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
    await writeSetting(
      stack.tdb.prisma,
      stack.config,
      "SERVICE_MAINNET_DEPOSIT_ADDRESS",
      generateKeypair().publicKeyBase58,
      "test",
    );
    await writeSetting(
      stack.tdb.prisma,
      stack.config,
      "SERVICE_ALLOWED_AGENTS",
      generateKeypair().publicKeyBase58,
      "test",
    );
    try {
      const { victim, header } = await pendingPayment();
      const logged = await callsLogged();
      const escaped = await stack.chat({
        body: { ...victimBody, network: "mainnet" },
        headers: { "X-Payment": header },
      });
      expect(escaped.status).toBe(409);
      expect(await escaped.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
      expect(await callsLogged()).toBe(logged);
      const own = await stack.chat({ body: victimBody, headers: { "X-Payment": header } });
      expect(own.status).toBe(200);
      expect((await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: victim.address } })).network).toBe(
        stack.devnet.caip2,
      );
    } finally {
      await stack.tdb.prisma.setting.deleteMany({
        where: {
          key: { in: ["SERVICE_MAINNET_ENABLED", "SERVICE_MAINNET_DEPOSIT_ADDRESS", "SERVICE_ALLOWED_AGENTS"] },
        },
      });
    }
  });

  it("credits a recovered top-up to the beneficiary its payment named, never the retrying request's", async () => {
    const payer = await stack.newAgent();
    const beneficiary = generateKeypair().publicKeyBase58;
    const thief = generateKeypair().publicKeyBase58;
    const topUp = (agent: string, headers: Record<string, string> = {}) =>
      topUpRoute(
        new Request("http://signet.test/api/v1/credits", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ amount_usdc: "0.002", agent_pubkey: agent }),
        }),
        {},
      );
    const header = await buildPaymentHeader(payer, await challengeOf(await topUp(beneficiary)), stack.devnet.url);
    expect((await topUp(beneficiary, { "X-Payment": header })).status).toBe(502);
    await landDirectly(stack, facilitator, header);

    const stolen = await topUp(thief, { "X-Payment": header });
    expect(stolen.status).toBe(409);
    expect(await stolen.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect(await stack.tdb.prisma.balance.findFirst({ where: { agentPubkey: thief } })).toBeNull();

    const own = await topUp(beneficiary, { "X-Payment": header });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ agent_pubkey: beneficiary, amount_usdc: "0.002" });
    // Sent again: the same top-up's answer, and no second credit.
    const again = await topUp(beneficiary, { "X-Payment": header });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect((await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: beneficiary } })).units).toBe(
      2_000n,
    );
    expect(await stack.tdb.prisma.balance.findFirst({ where: { agentPubkey: thief } })).toBeNull();
  });
});

describe("a payment left waiting by a slow cluster or a failed upstream, with stock clients", () => {
  let stack: PaidStack;
  let provider: FakeProvider;
  let failing = false;
  beforeAll(async () => {
    provider = await startFakeProvider(({ body }) =>
      failing
        ? failureAnswer
        : completionAnswer(body.model, "remote answer", { prompt_tokens: 10, completion_tokens: 3, cost: 0.000045 }),
    );
    // Every send lands, 1.5–2.5 s late: past the settle wait, so the first answer is 502 settlement_pending.
    stack = await startPaidStack({
      timing: "real",
      evm: true,
      env: {
        ...env,
        UPSTREAM_API_KEY: "test-key",
        SERVICE_TESTNET_PROVIDER_MODELS: "true",
        UPSTREAM_BASE_URL: provider.url,
        UPSTREAM_PROVIDER_NAME: "openrouter",
      },
      devnet: { timing: "real", slotMs: 25, faults: { seed: 7, confirmDelayMs: [1500, 2500] } },
    });
  });
  afterAll(async () => {
    await stack?.close();
    await provider?.close();
  });

  /** A stock @x402/fetch client, and the payment header it last sent (what its retry repeats). */
  const stockClient = (signer: Parameters<PaidStack["payingFetch"]>[0]) => {
    let header: string | null = null;
    const seen = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      header = req.headers.get("payment-signature") ?? header;
      return stack.chat({ body: JSON.parse(await req.text()), headers: Object.fromEntries(req.headers) });
    }) as typeof fetch;
    const rpcs = { [stack.devnet.caip2]: stack.devnet.faultFreeUrl };
    return { fetch: createPayingFetch(signer, rpcs, seen), header: () => header! };
  };
  const post = (client: { fetch: typeof fetch }, body: object) =>
    client.fetch(CHAT_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("serves the stock client's retry of the same request once it lands, and refuses a stranger's body meanwhile", async () => {
    const payer = stockClient(await stack.newAgent());
    const first = await post(payer, victimBody);
    expect(first.status).toBe(502);
    const { transaction } = ((await first.json()) as { error: { transaction: string } }).error;
    await until(
      "the late transfer to land",
      async () => stack.devnet.chain.getTransaction(transaction) !== null,
      10_000,
    );
    const logged = await stack.tdb.prisma.inferenceLog.count();

    const stranger = await stack.chat({ body: attackerBody, headers: { "PAYMENT-SIGNATURE": payer.header() } });
    expect(stranger.status).toBe(409);
    expect(await stranger.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    const wrapped = wrapPublicTransaction(
      await challengeOf(await stack.chat({ body: attackerBody })),
      await publicWire(stack.devnet.url, transaction),
    );
    expect((await stack.chat({ body: attackerBody, headers: { "PAYMENT-SIGNATURE": wrapped } })).status).toBe(409);
    expect(await stack.tdb.prisma.inferenceLog.count()).toBe(logged);

    // The stock client's own retry: the same body with the same header, as the 502 says.
    const retry = await stack.chat({ body: victimBody, headers: { "PAYMENT-SIGNATURE": payer.header() } });
    expect(retry.status).toBe(200);
    expect(promptHashOf(retry)).toBe(receiptOf(retry).prompt_hash);
    expect(await stack.tdb.prisma.inferenceLog.count()).toBe(logged + 1);
  });

  it("keeps an unserved payment for its own request: a stranger's body is refused, the payer's retry is served once", async () => {
    const remote = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "remote, the payer's own" }] };
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: remote })),
      stack.devnet.faultFreeUrl,
    );
    failing = true;
    try {
      // The transfer lands late: the payment waits pending; once the chain confirms it, the retry settles it and the
      // upstream fails.
      const pending = await stack.chat({ body: remote, headers: { "X-Payment": header } });
      expect(pending.status).toBe(502);
      const { error } = (await pending.json()) as { error: { code: string; transaction: string } };
      expect(error.code).toBe("settlement_pending");
      await stack.devnet.chain.confirmed(error.transaction);
      const first = await stack.chat({ body: remote, headers: { "X-Payment": header } });
      expect(first.status).toBe(502);
      expect(await first.json()).toMatchObject({ error: { code: "upstream_error" } });
    } finally {
      failing = false;
    }
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } });
    expect(payment.status).toBe("unserved");
    const logged = await stack.tdb.prisma.inferenceLog.count();
    for (const body of [
      { ...remote, messages: [{ role: "user", content: "the stranger's" }] },
      { ...remote, max_tokens: 1024 },
      { ...remote, network: "base-sepolia" },
      { ...remote, stream: true },
    ]) {
      const stranger = await stack.chat({ body, headers: { "X-Payment": header } });
      expect(stranger.status, JSON.stringify(body)).toBe(409);
    }
    // Mainnet is off: refused before the payment is even looked at.
    expect(
      (await stack.chat({ body: { ...remote, network: "mainnet" }, headers: { "X-Payment": header } })).status,
    ).toBe(503);
    expect(await stack.tdb.prisma.inferenceLog.count()).toBe(logged);
    expect((await stack.tdb.prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).status).toBe("unserved");
    const own = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    expect(own.status).toBe(200);
    expect(await stack.tdb.prisma.inferenceLog.count()).toBe(logged + 1);
  });

  it("refuses a stranger's body on a claim whose server died: nothing is taken over for him", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: victimBody })),
      stack.devnet.faultFreeUrl,
    );
    const decoded = decodePaymentSignatureHeader(header);
    const key = paymentIdempotencyKey(decoded);
    // The dead server's claim, past its lease, bound to the payer's request.
    await stack.tdb.prisma.$executeRaw`
      INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status, updated_at, request_digest)
      VALUES (${randomUUID()}::uuid, ${key}, ${stack.devnet.caip2}, ${agent.address}, ${decoded.accepted.payTo}, 1000, 'call', 'chat', 'claimed',
              now() - interval '1 hour', ${chatRequestDigest(victimBody, "solana-devnet")})`;
    const stranger = await stack.chat({ body: attackerBody, headers: { "X-Payment": header } });
    expect(stranger.status).toBe(409);
    expect(await stranger.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    const row = await stack.tdb.prisma.payment.findUniqueOrThrow({ where: { idempotencyKey: key } });
    expect(row.status).toBe("claimed");
    expect(row.updatedAt.getTime()).toBeLessThan(Date.now() - 30 * 60_000);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
  });

  it("binds a Base payment the same way: its authorization re-sent with another body is refused, its own retry served", async () => {
    const body = { ...victimBody, network: "base-sepolia" };
    const account = await stack.newEvmAgent();
    const header = await authorizationHeader(account, await challengeOf(await stack.chat({ body })));
    const send = () => stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    let served = await send();
    // Base blocks come every 2 s: the first answer may be 502 settlement_pending. anvil mines that block on demand,
    // and the same request is retried.
    if (served.status === 502) {
      expect(await served.json()).toMatchObject({ error: { code: "settlement_pending" } });
      await fetch(stack.baseSepolia!.faultFreeUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] }),
      });
      served = await send();
    }
    expect(served.status).toBe(200);
    const logged = await stack.tdb.prisma.inferenceLog.count();
    const stranger = await stack.chat({
      body: { ...attackerBody, network: "base-sepolia" },
      headers: { "PAYMENT-SIGNATURE": header },
    });
    expect(stranger.status).toBe(409);
    expect(await stranger.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    const again = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(receiptOf(again).inference_id).toBe(receiptOf(served).inference_id);
    expect(await stack.tdb.prisma.inferenceLog.count()).toBe(logged);
    expect(await stack.baseSepolia!.usdcBalance(account.address)).toBe(1_000_000n - 1_000n);
  });
});
