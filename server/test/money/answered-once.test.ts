// An answered call is served once, wherever the database fails after the upstream answered: one payment, one upstream
// call, one receipt, one charge. Through a proxy in front of PostgreSQL:
// - the database goes away 500 ms into a paid stream: the whole text goes out, the stream ends with
//   receipt_log_unavailable, and once the database is back the retry with the same payment header gets the kept answer
//   with its one receipt, never a second upstream call; a prepaid stream is charged once its record is written;
// - it goes away while a plain call's upstream answers: the answer is kept, and the retry gets it;
// - the connection drops right after the record committed, before its reply: the call is served with that record;
// - the database refuses the record for good (SQLSTATE 22P05): nothing is retried or served again; the paid call's
//   price is refunded to the payer's credit and its retry answers payment_refunded; the prepaid hold is released.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateKeypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import { flushRouteRecords, routeRuntime } from "../../runtime/route-edge";
import { sha256Hex, verifyReceipt } from "../../verify";
import type { Receipt } from "../../receipts/receipt-types";
import { operatorKeypair } from "../support/env";
import { completionAnswer, startFakeProvider, streamOf, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { readAnswer, routeFetch, signedCall } from "../support/route-calls";

const MODEL = "openai/gpt-4o-mini";
/** Fifty words a stream sends over about a second: the database is cut half way through. */
const WORDS = Array.from({ length: 50 }, (_, i) => `word${i}`).join(" ");
const GAP_MS = 20;
const CUT_AFTER_MS = 500;
const allChecks = {
  prompt_hash_ok: true,
  response_hash_ok: true,
  service_signature_ok: true,
  payment_on_chain_ok: true,
  payer_matches: true,
};

let provider: FakeProvider;
let upstreamCalls = 0;
/** How long the provider takes before it answers a plain call. */
let answerDelayMs = 0;
/** Runs when the provider takes a request: a test cuts the database from here, once the call is with the upstream. */
let onUpstream: () => void = () => undefined;
let stack: PaidStack;
const routes = routeFetch();

beforeAll(async () => {
  provider = await startFakeProvider(async ({ body }) => {
    upstreamCalls++;
    onUpstream();
    const answer = completionAnswer(body.model, WORDS, { prompt_tokens: 12, completion_tokens: 50, cost: 0.0001 });
    if (body.stream) return { ...streamOf(answer), gapMs: GAP_MS };
    await new Promise((r) => setTimeout(r, answerDelayMs));
    return answer;
  });
  stack = await startPaidStack({
    dbProxy: true,
    env: {
      X402_FLAT_PRICE_USDC: "0.01",
      UPSTREAM_API_KEY: "sk-test",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_PROVIDER_NAME: "openrouter",
      PREPAID_RATE_LIMIT_PER_MINUTE: "100000",
    },
  });
  await stack.tdb.prisma.$executeRawUnsafe(`CREATE TABLE test_refuse_records (refuse boolean NOT NULL)`);
  await stack.tdb.prisma.$executeRawUnsafe(`INSERT INTO test_refuse_records VALUES (false)`);
  await stack.tdb.prisma.$executeRawUnsafe(`CREATE FUNCTION test_refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (SELECT refuse FROM test_refuse_records) THEN
        RAISE EXCEPTION 'unsupported Unicode escape sequence' USING ERRCODE = '22P05';
      END IF;
      RETURN NEW;
    END $$`);
  await stack.tdb.prisma.$executeRawUnsafe(
    `CREATE TRIGGER test_refuse_record BEFORE INSERT ON inference_logs FOR EACH ROW EXECUTE FUNCTION test_refuse_record()`,
  );
});
afterAll(async () => {
  await stack?.close();
  await provider?.close();
});
beforeEach(() => {
  upstreamCalls = 0;
  answerDelayMs = 0;
  onUpstream = () => undefined;
  stack.dbProxy!.restore();
});

/** Cuts the service's database `afterMs` after the upstream takes the call. */
function cutWhenUpstreamCalled(afterMs: number): void {
  onUpstream = () => void setTimeout(() => stack.dbProxy!.cut(), afterMs);
}

const messages = [{ role: "user", content: "count to fifty" }];

async function paidHeader(body: Record<string, unknown>) {
  const agent = await stack.newAgent(10_000_000n);
  return {
    agent,
    header: await buildPaymentHeader(agent, await challengeOf(await stack.chat({ body })), stack.devnet.url),
  };
}

async function verifies(receipt: Receipt, response: unknown): Promise<void> {
  const verdict = await verifyReceipt({
    receipt,
    prompt: messages,
    response,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc: stack.devnet.url,
  });
  expect(verdict.checks).toEqual(allChecks);
}

async function noDrift(): Promise<void> {
  const reports = await reconcile(await routeRuntime());
  expect(reports.flatMap((r) => r.mismatches)).toEqual([]);
}

/**
 * Sends a payer's retry as a client does: again after a pause while it is answered 409 payment_replay ("being
 * processed") or 503, for up to 5 s.
 */
async function retried(send: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const res = await send();
    if ((res.status !== 409 && res.status !== 503) || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const refuseRecords = (refuse: boolean) =>
  stack.tdb.prisma.$executeRawUnsafe(`UPDATE test_refuse_records SET refuse = ${refuse}`);

describe("the database going away after the upstream answered", () => {
  it("serves a paid stream once: the retry after the database returns gets the kept answer and its one receipt", async () => {
    const body = { model: MODEL, messages, stream: true };
    const { header } = await paidHeader(body);
    cutWhenUpstreamCalled(CUT_AFTER_MS);
    const res = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(res.status).toBe(200);
    const first = await readAnswer(res, "chat", true);
    // Every delta went out; the receipt could not, and the stream says how to get it.
    expect(first.text).toBe(WORDS);
    expect(first.receipt).toBeNull();
    expect(first.error).toMatchObject({ code: "receipt_log_unavailable" });
    expect(first.error!.message).toMatch(/same payment header/);

    const during = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ error: { code: "database_unavailable" } });
    stack.dbProxy!.restore();

    const retry = await readAnswer(
      await retried(() => stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } })),
      "chat",
      true,
    );
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe(true);
    expect(retry.text).toBe(first.text);
    // The one receipt covers what the first stream sent.
    await verifies(retry.receipt!, first.text);
    expect(upstreamCalls).toBe(1);
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({
      where: { txSignature: retry.receipt!.payment!.tx_signature },
    });
    expect(payment.status).toBe("served");
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { paymentId: payment.id } })).toBe(1);
    await noDrift();
  });

  it("charges a prepaid stream once its record is written, with the receipt of the text it sent", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    const call = signedCall(kp, "inference", "count to fifty", { stream: true, model: MODEL });
    cutWhenUpstreamCalled(CUT_AFTER_MS);
    const first = await readAnswer(await routes.fetch(call.request), "inference", true);
    expect(first.text).toBe(WORDS);
    expect(first.error).toMatchObject({ code: "receipt_log_unavailable", inference_id: expect.any(String) });
    const id = first.error!.inference_id as string;
    expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "held" });
    // What a draining process does before it exits: it tries for a bounded time, and says what is still waiting.
    expect(await flushRouteRecords(300)).toBe(1);
    stack.dbProxy!.restore();
    expect(await flushRouteRecords(5_000)).toBe(0);

    const hold = await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id } });
    expect(hold.status).toBe("captured");
    const logged = await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({ where: { id } });
    const receipt = logged.receipt as unknown as Receipt;
    expect(receipt.response_hash).toBe(sha256Hex(first.text!));
    await verifies(receipt, first.text);
    const balance = await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } });
    expect(balance.units).toBe(1_000_000n - hold.chargedUnits!);
    expect(upstreamCalls).toBe(1);
    await noDrift();
  });

  it("keeps a plain paid answer the database could not take, and gives it to the retry", async () => {
    const body = { model: MODEL, messages };
    const { header } = await paidHeader(body);
    answerDelayMs = 300;
    cutWhenUpstreamCalled(0);
    const first = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status).toBe(503);
    expect(first.headers.get("x-service-receipt")).toBeNull();
    expect(await first.json()).toMatchObject({ error: { code: "receipt_log_unavailable" } });
    stack.dbProxy!.restore();

    const retry = await readAnswer(
      await retried(() => stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } })),
      "chat",
      false,
    );
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe(true);
    expect(retry.text).toBe(WORDS);
    await verifies(retry.receipt!, retry.response);
    expect(upstreamCalls).toBe(1);
    await noDrift();
  });
});

describe("a record whose reply is lost after its commit", () => {
  it("serves the call with the record that committed, paid and prepaid", async () => {
    const drop = stack.dbProxy!.dropAfterCommit(/INSERT INTO inference_logs/, 2);
    try {
      const body = { model: MODEL, messages };
      const { agent, header } = await paidHeader(body);
      const paid = await readAnswer(
        await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } }),
        "chat",
        false,
      );
      expect(paid.status).toBe(200);
      await verifies(paid.receipt!, paid.response);
      const kp = generateKeypair();
      await stack.credit(kp.publicKeyBase58, 1_000_000n);
      const call = signedCall(kp, "inference", "count to fifty", { stream: false, model: MODEL });
      const prepaid = await readAnswer(await routes.fetch(call.request), "inference", false);
      expect(prepaid.status).toBe(200);
      expect(drop.dropped()).toBe(2);
      expect(upstreamCalls).toBe(2);
      expect(
        await stack.tdb.prisma.inferenceLog.count({
          where: { agentPubkey: { in: [agent.address, kp.publicKeyBase58] } },
        }),
      ).toBe(2);
      // The receipt served is the one stored.
      const stored = await stack.tdb.prisma.inferenceLog.findUniqueOrThrow({
        where: { id: String(paid.receipt!.inference_id) },
      });
      expect((stored.receipt as unknown as Receipt).service_signature).toBe(paid.receipt!.service_signature);
    } finally {
      drop.stop();
    }
    await noDrift();
  });
});

describe("a record the database refuses for good", () => {
  it("refunds a paid call to the payer's credit once, without a receipt, and its retry says so", async () => {
    const body = { model: MODEL, messages };
    const { agent, header } = await paidHeader(body);
    await refuseRecords(true);
    try {
      const first = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
      expect(first.status).toBe(500);
      expect(first.headers.get("x-service-receipt")).toBeNull();
      expect(await first.json()).toMatchObject({
        error: { code: "call_not_recorded", refunded_usdc: "0.01", balance_usdc: "0.01" },
      });
      for (let i = 0; i < 2; i++) {
        const retry = await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } });
        expect(retry.status).toBe(409);
        expect(await retry.json()).toMatchObject({ error: { code: "payment_refunded" } });
      }
      const streamBody = { ...body, stream: true };
      const streamed = await paidHeader(streamBody);
      const stream = await readAnswer(
        await stack.chat({ body: streamBody, headers: { "PAYMENT-SIGNATURE": streamed.header } }),
        "chat",
        true,
      );
      expect(stream.text).toBe(WORDS);
      expect(stream.receipt).toBeNull();
      expect(stream.error).toMatchObject({ code: "call_not_recorded" });
    } finally {
      await refuseRecords(false);
    }
    expect(upstreamCalls).toBe(2);
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: agent.address } });
    expect(payment).toMatchObject({ status: "refunded", failureReason: "record_refused" });
    expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
      status: "released",
    });
    const balance = await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: agent.address } });
    expect(balance.units).toBe(10_000n);
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(0);
    await noDrift();
  });

  it("releases a prepaid hold whole, charging nothing", async () => {
    const kp = generateKeypair();
    await stack.credit(kp.publicKeyBase58, 1_000_000n);
    await refuseRecords(true);
    try {
      for (const stream of [false, true]) {
        const call = signedCall(kp, "inference", "count to fifty", { stream, model: MODEL });
        const answer = await readAnswer(await routes.fetch(call.request), "inference", stream);
        expect(answer.receipt).toBeNull();
        expect(answer.error).toMatchObject({ code: "call_not_recorded" });
      }
    } finally {
      await refuseRecords(false);
    }
    expect(
      (await stack.tdb.prisma.creditHold.findMany({ where: { agentPubkey: kp.publicKeyBase58 } })).map((h) => h.status),
    ).toEqual(["released", "released"]);
    expect(
      (await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: kp.publicKeyBase58 } })).units,
    ).toBe(1_000_000n);
    expect(upstreamCalls).toBe(2);
    await noDrift();
  });
});
