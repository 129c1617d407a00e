// One money path, through HTTP on PostgreSQL: a paid call is served from the hold its settlement reserved, so the same
// key's prepaid calls can never spend that money while the paid call streams, nor while its payment waits, unserved,
// for a retry. Every served receipt's cost is charged to the unit, and the agent's balance is what it paid (and was
// granted) minus what its receipts cost.
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { routeRuntime } from "../../runtime/route-edge";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { usdcNumberToUnits } from "../../verify";
import type { Receipt } from "../../receipts/receipt-types";
import { completionAnswer, failureAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
let failing = false;
/** Slow answers wait here until the test lets them go (holdSlowAnswers, then releaseSlowAnswers). */
let slowAnswers: Promise<void> = Promise.resolve();
let releaseSlowAnswers: () => void = () => undefined;
function holdSlowAnswers(): void {
  slowAnswers = new Promise((resolve) => (releaseSlowAnswers = resolve));
}
let provider: FakeProvider;
let stack: PaidStack;

beforeAll(async () => {
  provider = await startFakeProvider(async ({ raw, body }) => {
    // A slow answer keeps a prepaid call's hold open until the paid call it races has finished.
    if (raw.includes("slow")) await slowAnswers;
    return failing
      ? failureAnswer
      : completionAnswer(body.model, "remote answer", { prompt_tokens: 10, completion_tokens: 3, cost: 0.000045 });
  });
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      LOCAL_MODEL_STREAM_DELAY_MS: "20",
      UPSTREAM_API_KEY: "test-key",
      SERVICE_TESTNET_PROVIDER_MODELS: "true",
      UPSTREAM_BASE_URL: provider.url,
      UPSTREAM_PROVIDER_NAME: "openrouter",
    },
  });
});
afterAll(async () => {
  releaseSlowAnswers();
  await stack?.close();
  await provider?.close();
});

/** One Ed25519 key that pays on chain and signs prepaid requests. */
async function dualAgent(usdcUnits = 1_000_000n): Promise<{ kp: Ed25519Keypair; signer: KeyPairSigner }> {
  const kp = generateKeypair();
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await stack.devnet.fundAccount(signer.address, { usdcUnits });
  return { kp, signer };
}

function prepaid(kp: Ed25519Keypair, body: Record<string, unknown>): Promise<Response> {
  const text = JSON.stringify({ nonce: newNonce(), timestamp: Date.now(), ...body });
  return inferenceRoute(
    new Request("http://signet.test/api/v1/inference", {
      method: "POST",
      headers: signRequestHeaders(kp, "POST", "http://signet.test/api/v1/inference", text),
      body: text,
    }),
    {},
  );
}

const receiptOf = (res: Response): Receipt =>
  JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString("utf8")) as Receipt;
const units = (receipt: Receipt): bigint => usdcNumberToUnits(receipt.cost_usdc)!;

/** What the ledger charged one call: its hold minus what was returned. */
async function charged(inferenceId: string): Promise<bigint> {
  const entries = await stack.tdb.prisma.ledgerEntry.findMany({
    where: { inferenceId, kind: { in: ["hold", "hold_release", "inference_debit"] } },
  });
  return -entries.reduce((s, e) => s + e.units, 0n);
}

async function balance(agent: string): Promise<bigint> {
  return (
    (
      await stack.tdb.prisma.balance.findUnique({
        where: { agentPubkey_network: { agentPubkey: agent, network: DEVNET } },
      })
    )?.units ?? 0n
  );
}

async function credits(agent: string): Promise<bigint> {
  const entries = await stack.tdb.prisma.ledgerEntry.findMany({
    where: {
      agentPubkey: agent,
      network: DEVNET,
      kind: { in: ["payment_credit", "topup_credit", "grant_credit", "test_credit"] },
    },
  });
  return entries.reduce((s, e) => s + e.units, 0n);
}

async function expectZeroDrift(): Promise<void> {
  const reports = await reconcile(await routeRuntime());
  expect(reports.flatMap((r) => r.mismatches)).toEqual([]);
}

describe("a paid call's credit is its own", () => {
  it("charges a streamed paid call in full while a prepaid call of the same key tries to hold that credit", async () => {
    const { kp, signer } = await dualAgent();
    const messages = [{ role: "user", content: "a long enough answer to stream for a while, token by token, please" }];
    const paid = await stack.payingFetch(signer)("http://signet.test/api/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages, stream: true }),
    });
    expect(paid.status).toBe(200);
    // The paid call streams now; its settlement credited 1000 units and reserved them all for it.
    // A slow prepaid call whose worst case is the whole credit tries to hold it until after the paid call captures.
    holdSlowAnswers();
    const grabbing = prepaid(kp, { model: "openai/gpt-4o-mini", prompt: "slow: take it all", max_cost_usdc: 0.001 });
    const answer = await readStreamedAnswer(paid.body!);
    releaseSlowAnswers();
    const grab = await grabbing;
    expect(grab.status).toBe(402);
    expect(await grab.json()).toMatchObject({ error: { code: "insufficient_credits", balance_usdc: "0" } });
    expect(answer.done).toBe(true);
    const receipt = answer.receipt!;
    expect(units(receipt)).toBeGreaterThan(0n);
    expect(await charged(String(receipt.inference_id))).toBe(units(receipt));
    expect(await balance(kp.publicKeyBase58)).toBe((await credits(kp.publicKeyBase58)) - units(receipt));
    await expectZeroDrift();
  });

  it("keeps an unserved payment's credit for its retry: a prepaid call cannot spend it, and the retry is charged in full", async () => {
    const { kp, signer } = await dualAgent();
    const remote = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "remote" }] };
    const header = await buildPaymentHeader(
      signer,
      await challengeOf(await stack.chat({ body: remote })),
      stack.devnet.url,
    );
    failing = true;
    let failed: Response;
    try {
      failed = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    } finally {
      failing = false;
    }
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({
      error: { code: "upstream_error", balance_usdc: "0", reserved_usdc: "0.001" },
    });
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: signer.address } });
    expect(payment.status).toBe("unserved");
    expect(await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
      status: "held",
      units: 1000n,
      paymentId: payment.id,
    });
    await expectZeroDrift();

    // A slow prepaid call whose worst case is the whole credit tries to hold it while the retry is served.
    holdSlowAnswers();
    const spending = prepaid(kp, {
      model: "openai/gpt-4o-mini",
      prompt: "slow: spend the unserved credit",
      max_cost_usdc: 0.001,
    });
    const retried = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    releaseSlowAnswers();
    const spend = await spending;
    expect(spend.status).toBe(402);
    expect(await spend.json()).toMatchObject({ error: { code: "insufficient_credits" } });
    expect(retried.status).toBe(200);
    const receipt = receiptOf(retried);
    expect(units(receipt)).toBe(45n);
    expect(await charged(String(receipt.inference_id))).toBe(45n);
    expect(await balance(kp.publicKeyBase58)).toBe((await credits(kp.publicKeyBase58)) - 45n);
    // Sent again once served: the stored answer and receipt, never a second charge.
    const ledgerBefore = await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: kp.publicKeyBase58 } });
    const callsBefore = await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: kp.publicKeyBase58 } });
    const again = await stack.chat({ body: remote, headers: { "X-Payment": header } });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    expect(receiptOf(again)).toEqual(receipt);
    expect(await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(ledgerBefore);
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: kp.publicKeyBase58 } })).toBe(callsBefore);
    expect(await balance(kp.publicKeyBase58)).toBe((await credits(kp.publicKeyBase58)) - 45n);
    await expectZeroDrift();
  });

  it("lets the change of a served paid call pay for prepaid calls, and no more", async () => {
    const { kp, signer } = await dualAgent();
    const paid = await stack.payingFetch(signer)("http://signet.test/api/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(paid.status).toBe(200);
    const paidCost = units(receiptOf(paid));
    expect(await balance(kp.publicKeyBase58)).toBe(1000n - paidCost);
    const next = await prepaid(kp, { model: "local/echo-1", prompt: "with the change" });
    expect(next.status).toBe(200);
    const prepaidCost = units(receiptOf(next));
    expect(await charged(String(receiptOf(next).inference_id))).toBe(prepaidCost);
    expect(await balance(kp.publicKeyBase58)).toBe(1000n - paidCost - prepaidCost);
    await expectZeroDrift();
  });
});

describe("reconcile checks the money", () => {
  it("reports a served call whose receipt states more than the ledger charged", async () => {
    const { signer } = await dualAgent();
    const res = await stack.payingFetch(signer)("http://signet.test/api/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "drift" }] }),
    });
    const id = String(receiptOf(res).inference_id);
    // Plant the bug this path had: the call's change returned as if it cost nothing.
    const hold = await stack.tdb.prisma.creditHold.findUniqueOrThrow({ where: { id } });
    await stack.tdb.prisma.ledgerEntry.updateMany({
      where: { inferenceId: id, kind: "hold_release" },
      data: { units: hold.units },
    });
    await stack.tdb.prisma.balance.update({
      where: { agentPubkey_network: { agentPubkey: signer.address, network: DEVNET } },
      data: { units: { increment: hold.chargedUnits! } },
    });
    const kinds = (await reconcile(await routeRuntime())).flatMap((r) => r.mismatches.map((m) => m.kind));
    // The receipt's cost was not charged (charge_mismatch), so the upstream's cost was not paid either (cost_exceeds_hold).
    expect(kinds.sort()).toEqual(["charge_mismatch", "cost_exceeds_hold"]);
    // Put it back for the suites after this one.
    await stack.tdb.prisma.ledgerEntry.updateMany({
      where: { inferenceId: id, kind: "hold_release" },
      data: { units: hold.units - hold.chargedUnits! },
    });
    await stack.tdb.prisma.balance.update({
      where: { agentPubkey_network: { agentPubkey: signer.address, network: DEVNET } },
      data: { units: { decrement: hold.chargedUnits! } },
    });
    await expectZeroDrift();
  });

  it("reports a paid credit made spendable while its payment still waits for its retry", async () => {
    const { signer } = await dualAgent();
    const remote = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "remote" }] };
    const header = await buildPaymentHeader(
      signer,
      await challengeOf(await stack.chat({ body: remote })),
      stack.devnet.url,
    );
    failing = true;
    try {
      expect((await stack.chat({ body: remote, headers: { "X-Payment": header } })).status).toBe(502);
    } finally {
      failing = false;
    }
    const payment = await stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer: signer.address } });
    // The old way: the unserved payment's credit sits in the balance, where a prepaid call could spend it.
    await stack.tdb.prisma.creditHold.update({ where: { id: payment.id }, data: { status: "released" } });
    await stack.tdb.prisma.ledgerEntry.create({
      data: {
        agentPubkey: signer.address,
        network: DEVNET,
        kind: "hold_release",
        units: 1000n,
        inferenceId: payment.id,
      },
    });
    await stack.tdb.prisma.balance.update({
      where: { agentPubkey_network: { agentPubkey: signer.address, network: DEVNET } },
      data: { units: { increment: 1000n } },
    });
    const kinds = (await reconcile(await routeRuntime())).flatMap((r) => r.mismatches.map((m) => m.kind));
    expect(kinds).toEqual(["credit_not_reserved"]);
    await stack.tdb.prisma.creditHold.update({ where: { id: payment.id }, data: { status: "held" } });
    await stack.tdb.prisma.ledgerEntry.deleteMany({ where: { inferenceId: payment.id, kind: "hold_release" } });
    await stack.tdb.prisma.balance.update({
      where: { agentPubkey_network: { agentPubkey: signer.address, network: DEVNET } },
      data: { units: { decrement: 1000n } },
    });
    expect((await stack.chat({ body: remote, headers: { "X-Payment": header } })).status).toBe(200);
    await expectZeroDrift();
  });
});
