// The x402 payment-identifier extension on PostgreSQL with real local chains, the ids sent by the stock client side
// (x402Client with the package's appendPaymentIdentifierToExtensions): the same id with the same payment behaves as
// that payment's header sent again (once served, the same request gets its stored answer, and nothing moves); the
// same payment on the other route is 409 payment_request_mismatch; the same id with another payment of the same payer is 409 payment_id_conflict with
// nothing settled, credited or charged, on either route and on any network, also when both are sent at once; another
// payer's use of the id blocks nobody; a malformed id is 400 invalid_payment_id, never a 500.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyPairSigner } from "@solana/kit";
import { x402Client } from "@x402/core/client";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { generatePaymentId, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { withPaymentId } from "../../agent/paying-fetch";
import type { Localnet } from "../../../devtools/localnet";
import { generateKeypair } from "../../keys/parse-secret-key";
import { writeSetting } from "../../settings/write-setting";
import { serviceError } from "../../errors/error-body";
import { challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

let stack: PaidStack;
let mainnet: Localnet;
const PRICE = 1_000n;

beforeAll(async () => {
  stack = await startPaidStack({ mainnet: true, timing: "instant", env: { X402_FLAT_PRICE_USDC: "0.001" } });
  mainnet = stack.mainnet!;
  await writeSetting(stack.tdb.prisma, stack.config, "SERVICE_MAINNET_ENABLED", "true", "test");
  await writeSetting(
    stack.tdb.prisma,
    stack.config,
    "SERVICE_MAINNET_DEPOSIT_ADDRESS",
    generateKeypair().publicKeyBase58,
    "test",
  );
});
afterAll(async () => stack?.close());

const chatBody = (network = "devnet") => ({
  model: "local/echo-1",
  messages: [{ role: "user", content: "idempotent" }],
  network,
});
const topUp = (body: unknown, headers: Record<string, string> = {}) =>
  topUpRoute(
    new Request("http://signet.test/api/v1/credits", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
    {},
  );

type Route = { send: (headers?: Record<string, string>) => Promise<Response>; chain: Localnet };
const chat = (network: "devnet" | "mainnet" = "devnet"): Route => ({
  send: (headers) => stack.chat({ body: chatBody(network), ...(headers ? { headers } : {}) }),
  chain: network === "devnet" ? stack.devnet : mainnet,
});
const credits = (): Route => ({ send: (headers) => topUp({ amount_usdc: "0.001" }, headers), chain: stack.devnet });

/**
 * A payment header built by the stock client from the route's 402, carrying `id` (appended by the package's client
 * utility, as the extension's client example does), or none.
 */
async function paymentHeader(agent: KeyPairSigner, route: Route, id?: string): Promise<string> {
  const paymentRequired: PaymentRequired = await challengeOf(await route.send());
  const client = new x402Client().register(
    route.chain.caip2 as never,
    new ExactSvmScheme(agent, { rpcUrl: route.chain.faultFreeUrl }),
  );
  const payload = await withPaymentId(client, id === undefined ? {} : { paymentId: id }).createPaymentPayload(
    paymentRequired,
  );
  return encodePaymentSignatureHeader(payload);
}

/** The header with its payment-identifier extension replaced (the payment itself untouched). */
function withExtension(header: string, extension: unknown): string {
  const payload = decodePaymentSignatureHeader(header);
  return encodePaymentSignatureHeader({
    ...payload,
    extensions: { ...payload.extensions, [PAYMENT_IDENTIFIER]: extension },
  });
}

/** An answer in brief: its status, an error's stable code (`error.code` of the body), and the body. */
async function answer(res: Response): Promise<{
  status: number;
  code?: string;
  replayed: string | null;
  body: Record<string, unknown> & { error?: Record<string, unknown> };
}> {
  const body = (await res.json()) as Record<string, unknown> & { error?: Record<string, unknown> };
  return {
    status: res.status,
    code: serviceError(body).code || undefined,
    replayed: res.headers.get("x-answer-replayed"),
    body,
  };
}

/** What an agent's money looks like: on chain, in the ledger, in the payments table, and the calls it was served. */
async function moneyOf(agent: KeyPairSigner, chain: Localnet = stack.devnet) {
  return {
    usdc: await chain.usdcBalance(agent.address),
    ledger: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address } }),
    payments: await stack.tdb.prisma.payment.count({ where: { payer: agent.address } }),
    calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } }),
  };
}

const pay = (route: Route, header: string) => route.send({ "PAYMENT-SIGNATURE": header });

describe("the same id with the same payment", () => {
  it("answers the same header sent again exactly as a header without an id: served once, then its stored answer, moving nothing", async () => {
    const agent = await stack.newAgent();
    const withId = await paymentHeader(agent, chat(), generatePaymentId());
    const withoutId = await paymentHeader(agent, chat());
    for (const header of [withId, withoutId]) {
      const first = await answer(await pay(chat(), header));
      expect(first).toMatchObject({ status: 200, replayed: null });
      const before = await moneyOf(agent);
      const again = await answer(await pay(chat(), header));
      expect(again).toMatchObject({ status: 200, replayed: "true", body: { id: first.body.id } });
      expect(await moneyOf(agent)).toEqual(before);
    }
    expect(await moneyOf(agent)).toMatchObject({ usdc: 1_000_000n - 2n * PRICE, calls: 2 });
  });

  it("serves one of five sends of one header with an id at once: the others are refused while it is processed, or get its stored answer after", async () => {
    const agent = await stack.newAgent();
    const header = await paymentHeader(agent, chat(), generatePaymentId());
    const answers = await Promise.all(Array.from({ length: 5 }, async () => answer(await pay(chat(), header))));
    const served = answers.filter((a) => a.status === 200 && a.replayed === null);
    expect(served, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
    for (const other of answers.filter((a) => a !== served[0])) {
      if (other.status === 200) expect(other).toMatchObject({ replayed: "true", body: { id: served[0]!.body.id } });
      else expect(other).toMatchObject({ status: 409, code: "payment_replay" });
    }
    expect(await moneyOf(agent)).toMatchObject({ usdc: 1_000_000n - PRICE, payments: 1, calls: 1 });
  });

  it("takes the same payment re-sent under another id as that payment: its stored answer, never a second charge", async () => {
    const agent = await stack.newAgent();
    const header = await paymentHeader(agent, chat(), generatePaymentId());
    const first = await answer(await pay(chat(), header));
    expect(first.status).toBe(200);
    const before = await moneyOf(agent);
    const renamed = withExtension(header, { info: { required: false, id: generatePaymentId() } });
    expect(await answer(await pay(chat(), renamed))).toMatchObject({
      status: 200,
      replayed: "true",
      body: { id: first.body.id },
    });
    expect(await moneyOf(agent)).toEqual(before);
    expect(before).toMatchObject({ usdc: 1_000_000n - PRICE, payments: 1, calls: 1 });
  });
});

describe("the same id with another payment", () => {
  it("answers 409 payment_id_conflict, naming the first payment's transaction, with nothing settled, credited or charged", async () => {
    const agent = await stack.newAgent();
    const id = generatePaymentId();
    const first = await pay(chat(), await paymentHeader(agent, chat(), id));
    expect(first.status).toBe(200);
    const firstTx = JSON.parse(Buffer.from(first.headers.get("payment-response")!, "base64").toString()) as {
      transaction: string;
    };
    const before = await moneyOf(agent);
    const second = await answer(await pay(chat(), await paymentHeader(agent, chat(), id)));
    expect(second).toMatchObject({
      status: 409,
      code: "payment_id_conflict",
      body: { error: { client_payment_id: id, tx_signature: firstTx.transaction } },
    });
    expect(await moneyOf(agent)).toEqual(before);
  });

  it("settles exactly one of two different payments sent at once under one id (the other: 409, nothing charged)", async () => {
    for (let round = 0; round < 4; round++) {
      const agent = await stack.newAgent();
      const id = generatePaymentId();
      const headers = [await paymentHeader(agent, chat(), id), await paymentHeader(agent, chat(), id)];
      expect(headers[0]).not.toBe(headers[1]);
      const answers = await Promise.all(headers.map(async (h) => answer(await pay(chat(), h))));
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)?.code).toBe("payment_id_conflict");
      const money = await moneyOf(agent);
      expect(money.usdc).toBe(1_000_000n - PRICE);
      expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address, clientPaymentId: id } })).toBe(1);
      expect(
        await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address, kind: "payment_credit" } }),
      ).toBe(1);
    }
  });

  it("refuses the loser of a claim race decided by the unique index itself: the other claim commits while this one waits", async () => {
    const agent = await stack.newAgent();
    const id = generatePaymentId();
    const header = await paymentHeader(agent, chat(), id);
    // Another claim of this payer under the same id, written but not committed: this request's check cannot see it.
    const blocker = new pg.Client({ connectionString: stack.tdb.url });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(
        `INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status, updated_at, client_payment_id)
         VALUES ($1::uuid, $2, $3, $4, $5, 1000, 'call', 'chat', 'claimed', now(), $6)`,
        [randomUUID(), `test:${randomUUID()}`, stack.devnet.caip2, agent.address, "elsewhere", id],
      );
      const pending = pay(chat(), header);
      // Wait until the request's claim is blocked on the uncommitted row, then let that row commit.
      let blocked = false;
      for (let i = 0; i < 400 && !blocked; i++) {
        const waiting = await blocker.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        blocked = (waiting.rows[0] as { n: number }).n > 0;
        if (!blocked) await new Promise((r) => setTimeout(r, 25));
      }
      expect(blocked).toBe(true);
      await blocker.query("COMMIT");
      expect(await answer(await pending)).toMatchObject({ status: 409, code: "payment_id_conflict" });
    } finally {
      await blocker.end();
    }
    expect((await moneyOf(agent)).usdc).toBe(1_000_000n);
    expect(await stack.tdb.prisma.payment.count({ where: { payer: agent.address } })).toBe(1);
  });

  it("refuses it on the top-up route too, and across the two routes", async () => {
    const agent = await stack.newAgent();
    const id = generatePaymentId();
    const header = await paymentHeader(agent, credits(), id);
    const first = await answer(await pay(credits(), header));
    expect(first).toMatchObject({
      status: 200,
      replayed: null,
      body: { agent_pubkey: agent.address, amount_usdc: "0.001" },
    });
    const before = await moneyOf(agent);
    // The same top-up header again: as without an id, the same top-up's answer and no second credit.
    const again = await answer(await pay(credits(), header));
    expect(again).toMatchObject({
      status: 200,
      replayed: "true",
      body: { agent_pubkey: agent.address, amount_usdc: "0.001", tx_signature: first.body.tx_signature },
    });
    // The same payment on the chat route: it paid for a top-up, not for this call.
    expect(await answer(await pay(chat(), header))).toMatchObject({ status: 409, code: "payment_request_mismatch" });
    expect(await answer(await pay(credits(), await paymentHeader(agent, credits(), id)))).toMatchObject({
      status: 409,
      code: "payment_id_conflict",
    });
    expect(await answer(await pay(chat(), await paymentHeader(agent, chat(), id)))).toMatchObject({
      status: 409,
      code: "payment_id_conflict",
    });
    expect(await moneyOf(agent)).toEqual(before);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent.address, kind: "topup_credit" } }),
    ).toBe(1);
  });

  it("refuses it on another network: an id is the payer's, whatever network it pays on", async () => {
    const agent = await stack.newAgent();
    await mainnet.fundAccount(agent.address, { usdcUnits: 1_000_000n });
    const id = generatePaymentId();
    expect((await pay(chat(), await paymentHeader(agent, chat(), id))).status).toBe(200);
    const onMainnet = await answer(await pay(chat("mainnet"), await paymentHeader(agent, chat("mainnet"), id)));
    expect(onMainnet).toMatchObject({ status: 409, code: "payment_id_conflict" });
    expect(await mainnet.usdcBalance(agent.address)).toBe(1_000_000n);
    // The check does not refuse mainnet itself: a new id pays there.
    expect((await pay(chat("mainnet"), await paymentHeader(agent, chat("mainnet"), generatePaymentId()))).status).toBe(
      200,
    );
  });
});

describe("ids are scoped per payer", () => {
  it("lets nobody block another payer's payment by using its id first", async () => {
    const victim = await stack.newAgent();
    const attacker = await stack.newAgent();
    const id = generatePaymentId();
    expect((await pay(chat(), await paymentHeader(attacker, chat(), id))).status).toBe(200);
    expect((await pay(chat(), await paymentHeader(victim, chat(), id))).status).toBe(200);
    // Within each payer's own scope the rule holds.
    expect(await answer(await pay(chat(), await paymentHeader(victim, chat(), id)))).toMatchObject({
      status: 409,
      code: "payment_id_conflict",
    });
    expect((await moneyOf(victim)).usdc).toBe(1_000_000n - PRICE);
  });
});

describe("malformed ids", () => {
  it.each([
    ["too short", { info: { required: false, id: "short" } }],
    ["too long", { info: { required: false, id: "x".repeat(129) } }],
    ["other characters", { info: { required: false, id: "pay_0123456789abcdef!" } }],
    ["a number", { info: { required: false, id: 1234567890123456 } }],
    ["no info", { id: generatePaymentId() }],
    ["not an object", "pay_0123456789abcdef"],
  ])(
    "rejects malformed input: an id %s is 400 invalid_payment_id, with nothing settled or recorded",
    async (_label, extension) => {
      const agent = await stack.newAgent();
      const header = withExtension(await paymentHeader(agent, chat(), generatePaymentId()), extension);
      for (const route of [chat(), credits()]) {
        const refused = await answer(await pay(route, header));
        expect(refused).toMatchObject({ status: 400, code: "invalid_payment_id" });
        expect(refused.body.error?.reason).toMatch(/^malformed_(extension|id)$/);
      }
      expect(await moneyOf(agent)).toEqual({ usdc: 1_000_000n, ledger: 0, payments: 0, calls: 0 });
    },
  );
});
