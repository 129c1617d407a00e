// Races and switches on the paid path, on PostgreSQL with real local chains:
// - one Solana payment re-encoded several ways and sent at once is one payment: one 200, the rest 409, no 500, and no
//   row left `claimed`;
// - the kill switch applies to a payment's own network; a retry naming another network is not the request that paid
//   (409 payment_request_mismatch, nothing moves); grants never credit a disabled mainnet;
// - a stream that outlives the payment lease is never served twice: its lease is renewed while it streams.
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as challengeRoute } from "@/app/api/v1/grants/challenge/route";
import { POST as grantRoute } from "@/app/api/v1/grants/route";
import { generateKeypair } from "../../keys/parse-secret-key";
import { signDetached } from "../../receipts/sign-receipt";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { writeSetting } from "../../settings/write-setting";
import { completionAnswer, failureAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { withEnv } from "../support/env";

let failing = false;
let provider: FakeProvider;
let stack: PaidStack;
const mainnetDeposit = generateKeypair().publicKeyBase58;

beforeAll(async () => {
  provider = await startFakeProvider(({ body }) =>
    failing
      ? failureAnswer
      : completionAnswer(body.model, "remote answer", { prompt_tokens: 10, completion_tokens: 3, cost: 0.000045 }),
  );
  stack = await startPaidStack({
    mainnet: true,
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      SERVICE_MAINNET_ENABLED: "false",
      // A lease far shorter than a stream: 40 tokens × 40 ms is 1.6 s against a 300 ms lease.
      PAYMENT_LEASE_MS: "300",
      LOCAL_MODEL_STREAM_DELAY_MS: "40",
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
beforeEach(async () => {
  await stack.tdb.prisma.setting.deleteMany({
    where: { key: { in: ["SERVICE_MAINNET_ENABLED", "SERVICE_MAINNET_DEPOSIT_ADDRESS", "X402_NETWORK"] } },
  });
});

const set = (key: Parameters<typeof writeSetting>[2], value: string) =>
  writeSetting(stack.tdb.prisma, stack.config, key, value, "test");
const local = { model: "local/echo-1", messages: [{ role: "user", content: "once" }] };

describe("one payment, many encodings", () => {
  it("serves a payment re-encoded five ways and sent at once exactly once: one 200, four 409, no 500, no claim left", async () => {
    // The service's own lease (120 s), not this file's 300 ms one, which the stream test needs. With 300 ms, a claim
    // renewal (every 100 ms) that a busy machine delays lets a send reaching the claim late find it stale and take it
    // over, a race this test is not about (a CI-speed run here answered one of the five sends 502).
    await withEnv({ PAYMENT_LEASE_MS: undefined }, async () => {
      const agent = await stack.newAgent();
      const header = await buildPaymentHeader(
        agent,
        await challengeOf(await stack.chat({ body: local })),
        stack.devnet.url,
      );
      const payload = decodePaymentSignatureHeader(header);
      const wire = Buffer.from((payload.payload as { transaction: string }).transaction, "base64");
      // The fee payer's (still empty) signature slot filled with other bytes: the same message, other wire bytes.
      const junkSlot = Buffer.from(wire);
      junkSlot.fill(9, 1, 65);
      const variants = [
        header,
        encodePaymentSignatureHeader({ ...payload, payload: { ...payload.payload, note: "re-encoded" } }),
        encodePaymentSignatureHeader({ ...payload, payload: { transaction: junkSlot.toString("base64") } }),
        encodePaymentSignatureHeader({ ...payload, extensions: { anything: true } } as typeof payload),
        Buffer.from(
          JSON.stringify({
            payload: payload.payload,
            accepted: payload.accepted,
            resource: payload.resource,
            x402Version: 2,
          }),
        ).toString("base64"),
      ];
      expect(new Set(variants).size).toBe(5);
      const results = await Promise.all(variants.map((v) => stack.chat({ body: local, headers: { "X-Payment": v } })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409))
        expect(await r.json()).toMatchObject({ error: { code: "payment_replay" } });
      const payments = await stack.tdb.prisma.payment.findMany({ where: { payer: agent.address } });
      expect(payments.map((p) => p.status)).toEqual(["served"]);
      expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - 1000n);
      expect(await stack.tdb.prisma.payment.count({ where: { status: "claimed" } })).toBe(0);
    });
  });
});

describe("the kill switch, on the payment's own network", () => {
  it("refuses the retry of an unserved mainnet payment while mainnet is off, and through a request that names devnet at any time", async () => {
    await set("SERVICE_MAINNET_ENABLED", "true");
    await set("SERVICE_MAINNET_DEPOSIT_ADDRESS", mainnetDeposit);
    const remote = {
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "mainnet" }],
      network: "mainnet",
    };
    const agent = await stack.newAgent(1_000_000n, stack.mainnet!);
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: remote })),
      stack.mainnet!.url,
    );
    failing = true;
    try {
      expect((await stack.chat({ body: remote, headers: { "X-Payment": header } })).status).toBe(502);
    } finally {
      failing = false;
    }
    const calls = () => stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } });
    const ledger = () => stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address } });
    const ledgerBefore = await ledger();
    await set("SERVICE_MAINNET_ENABLED", "false");
    // The same request while mainnet is off: the switch of the payment's own network refuses it.
    const sameRequest = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    expect(sameRequest.status).toBe(503);
    expect(await sameRequest.json()).toMatchObject({ error: { code: "mainnet_disabled" } });
    // Naming devnet is another request than the one the payment paid for: refused before any switch is read.
    const onDevnet = await stack.chat({ body: { ...remote, network: "devnet" }, headers: { "X-Payment": header } });
    expect(onDevnet.status).toBe(409);
    expect(await onDevnet.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } });
    expect(payment.status).toBe("unserved");
    expect(await calls()).toBe(0);
    expect(await ledger()).toBe(ledgerBefore);
    // Back on, the devnet-named request is still not the one that paid; the same header with the same body is served once.
    await set("SERVICE_MAINNET_ENABLED", "true");
    const stillDevnet = await stack.chat({ body: { ...remote, network: "devnet" }, headers: { "X-Payment": header } });
    expect(stillDevnet.status).toBe(409);
    expect(await stillDevnet.json()).toMatchObject({ error: { code: "payment_request_mismatch" } });
    expect((await stack.chat({ body: remote, headers: { "X-Payment": header } })).status).toBe(200);
    expect(await calls()).toBe(1);
    expect((await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } })).status).toBe(
      "served",
    );
  });

  it("refuses a grant on a default network that is mainnet while mainnet is off, crediting nothing", async () => {
    await set("X402_NETWORK", "mainnet");
    const kp = generateKeypair();
    const issued = await challengeRoute(
      new Request(`http://signet.test/api/v1/grants/challenge?agent_pubkey=${kp.publicKeyBase58}`),
      {},
    );
    const { challenge } = (await issued.json()) as { challenge: string };
    const res = await grantRoute(
      new Request("http://signet.test/api/v1/grants", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.7" },
        body: JSON.stringify({
          agent_pubkey: kp.publicKeyBase58,
          challenge,
          signature: signDetached(utf8ToBytes(challenge), kp),
        }),
      }),
      {},
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "mainnet_disabled" } });
    expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(0);
    expect(await stack.tdb.prisma.grant.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(0);
  });
});

describe("the payment lease while a stream runs", () => {
  it("never serves a stream longer than the lease twice: a retry mid-stream is a replay, and one call is logged", async () => {
    const agent = await stack.newAgent();
    const long = {
      model: "local/echo-1",
      messages: [{ role: "user", content: Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ") }],
      stream: true,
    };
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: long })),
      stack.devnet.url,
    );
    const first = await stack.chat({ body: long, headers: { "X-Payment": header } });
    expect(first.status).toBe(200);
    const reading = readStreamedAnswer(first.body!);
    // Well past the 300 ms lease, while the stream still runs.
    await new Promise((r) => setTimeout(r, 900));
    const retry = await stack.chat({ body: long, headers: { "X-Payment": header } });
    expect(retry.status).toBe(409);
    const answer = await reading;
    expect(answer.receipt).not.toBeNull();
    // Sent again after the stream was served: its stored answer, the same receipt, and still one call.
    const late = await stack.chat({ body: long, headers: { "X-Payment": header } });
    expect(late.status).toBe(200);
    expect(late.headers.get("x-answer-replayed")).toBe("true");
    expect((await readStreamedAnswer(late.body!)).receipt?.inference_id).toBe(answer.receipt!.inference_id);
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(1);
    expect((await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } })).status).toBe(
      "served",
    );
  });
});
