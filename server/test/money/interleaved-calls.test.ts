// A property of the one money path: for any mix of paid, streamed, prepaid (plain and streamed), unserved-then-retried
// and top-up calls of one key, sent at once so they interleave, every served receipt's cost is what the ledger charged
// for it, the agent's balance is what it paid minus what its calls were charged, and `reconcile` finds zero drift
// against the chain and the ledger.
import { testKnob } from "../support/env";
import { randomUUID } from "node:crypto";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chatRoute } from "@/app/api/v1/chat/completions/route";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { routeRuntime } from "../../runtime/route-edge";
import { createPayingFetch } from "../../agent/paying-fetch";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import type { Receipt } from "../../receipts/receipt-types";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { unitsToUsdcNumber, usdcNumberToUnits } from "../../verify";
import { completionAnswer, failureAnswer, startFakeProvider, type FakeProvider } from "../support/fake-provider";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const RUNS = testKnob("MONEY_PROPERTY_RUNS", 20);
/** Provider requests whose prompt names a token in here fail once, then succeed: the unserved-then-retried calls. */
const failOnce = new Set<string>();
let provider: FakeProvider;
let stack: PaidStack;
/** Called when a slow call reaches the provider: its hold was placed before. */
let slowArrived: () => void = () => undefined;

beforeAll(async () => {
  provider = await startFakeProvider(async ({ raw, body }) => {
    if (raw.includes("slow-answer")) {
      slowArrived();
      await new Promise((r) => setTimeout(r, 300));
    }
    const token = /fail-once:([0-9a-f-]{36})/.exec(raw)?.[1];
    if (token && failOnce.has(token)) {
      failOnce.delete(token);
      return failureAnswer;
    }
    // A provider that keeps to the completion cap it was given, and bills by tokens (no `cost` of its own): a cost
    // above the call's hold cannot happen by construction.
    return completionAnswer(body.model, "remote answer", {
      prompt_tokens: 10,
      completion_tokens: Math.min(3, body.max_tokens ?? 3),
    });
  });
  stack = await startPaidStack({
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      LOCAL_MODEL_STREAM_DELAY_MS: "10",
      PREPAID_RATE_LIMIT_PER_MINUTE: "10000",
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

type Op = "paid" | "paid_stream" | "prepaid" | "prepaid_stream" | "prepaid_hold_all" | "unserved_retry" | "top_up";
/** `prepaid_hold_all`: a slow prepaid call whose worst case is the whole 0.001 credit, the attacker's move. */
const OPS: Op[] = ["paid", "paid_stream", "prepaid", "prepaid_stream", "prepaid_hold_all", "unserved_retry", "top_up"];

interface Agent {
  kp: Ed25519Keypair;
  signer: KeyPairSigner;
  pay: typeof fetch;
}

/** The receipts of what was served; a refusal (402 for want of credit) is a fine outcome too, and yields none. */
async function run(agent: Agent, op: Op): Promise<Receipt[]> {
  const json = { "content-type": "application/json" };
  const messages = [{ role: "user", content: `call ${op} ${randomUUID()}` }];
  switch (op) {
    case "paid":
    case "paid_stream": {
      const res = await agent.pay("http://signet.test/api/v1/chat/completions", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ model: "local/echo-1", messages, stream: op === "paid_stream" }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return [op === "paid" ? headerReceipt(res) : (await readStreamedAnswer(res.body!)).receipt!];
    }
    case "prepaid":
    case "prepaid_stream": {
      const res = await prepaid(agent, { model: "local/echo-1", messages, stream: op === "prepaid_stream" });
      if (res.status === 402) return [];
      expect(res.status, await res.clone().text()).toBe(200);
      return [op === "prepaid_stream" ? (await readStreamedAnswer(res.body!)).receipt! : headerReceipt(res)];
    }
    case "prepaid_hold_all": {
      // Slow calls, each budgeted to all the credit left, until none is left: whatever they hold, nobody else can.
      const pending: Promise<Response>[] = [];
      for (let i = 0; i < 8; i++) {
        const spendable =
          (
            await stack.tdb.prisma.balance.findUnique({
              where: { agentPubkey_network: { agentPubkey: agent.kp.publicKeyBase58, network: DEVNET } },
            })
          )?.units ?? 0n;
        if (spendable < 3n) break;
        const arrived = new Promise<void>((r) => (slowArrived = r));
        const call = prepaid(agent, {
          model: "openai/gpt-4o-mini",
          messages: [{ role: "user", content: "slow-answer" }],
          max_cost_usdc: unitsToUsdcNumber(spendable),
        });
        pending.push(call);
        // The next budget reads the balance once this call's hold is placed (it reached the provider) or it was refused.
        await Promise.race([arrived, call]);
      }
      const receipts: Receipt[] = [];
      for (const res of await Promise.all(pending)) {
        // Refused for want of credit, or a budget too small for even one token: nothing held, nothing charged.
        if (
          res.status === 402 ||
          (res.status === 400 &&
            ((await res.clone().json()) as { error?: { detail?: string } }).error?.detail === "max_cost_usdc")
        )
          continue;
        expect(res.status, await res.clone().text()).toBe(200);
        receipts.push(headerReceipt(res));
      }
      return receipts;
    }
    case "unserved_retry": {
      const token = randomUUID();
      failOnce.add(token);
      const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `fail-once:${token}` }] };
      const chat = (headers: Record<string, string> = {}) =>
        chatRoute(
          new Request("http://signet.test/api/v1/chat/completions", {
            method: "POST",
            headers: { ...json, ...headers },
            body: JSON.stringify(body),
          }),
          {},
        );
      const header = await buildPaymentHeader(agent.signer, await challengeOf(await chat()), stack.devnet.url);
      expect((await chat({ "X-Payment": header })).status).toBe(502);
      const retried = await chat({ "X-Payment": header });
      expect(retried.status, await retried.clone().text()).toBe(200);
      return [headerReceipt(retried)];
    }
    case "top_up": {
      const res = await agent.pay("http://signet.test/api/v1/credits", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ amount_usdc: "0.002" }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return [];
    }
  }
}

function prepaid(agent: Agent, call: Record<string, unknown>): Promise<Response> {
  const text = JSON.stringify({ ...call, nonce: newNonce(), timestamp: Date.now() });
  return inferenceRoute(
    new Request("http://signet.test/api/v1/inference", {
      method: "POST",
      headers: signRequestHeaders(agent.kp, "POST", "http://signet.test/api/v1/inference", text),
      body: text,
    }),
    {},
  );
}

const headerReceipt = (res: Response): Receipt =>
  JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString("utf8")) as Receipt;

async function newAgent(): Promise<Agent> {
  const kp = generateKeypair();
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await stack.devnet.fundAccount(signer.address, { usdcUnits: 1_000_000n });
  const dispatch = (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    return new URL(req.url).pathname === "/api/v1/credits" ? topUpRoute(req, {}) : chatRoute(req, {});
  };
  return { kp, signer, pay: createPayingFetch(signer, { [DEVNET]: stack.devnet.url }, dispatch as typeof fetch) };
}

describe("any interleaving of one key's calls", () => {
  it(`charges every receipt to the unit and leaves zero drift (${RUNS} runs)`, async () => {
    await fc.assert(
      // Each call starts after its own delay, so a call can land in the middle of another's settlement or stream.
      fc.asyncProperty(
        fc.array(fc.record({ op: fc.constantFrom(...OPS), delayMs: fc.integer({ min: 0, max: 250 }) }), {
          minLength: 2,
          maxLength: 7,
        }),
        async (calls) => {
          const agent = await newAgent();
          const receipts = (
            await Promise.all(
              calls.map(async ({ op, delayMs }) => {
                await new Promise((r) => setTimeout(r, delayMs));
                return run(agent, op);
              }),
            )
          ).flat();
          const who = agent.kp.publicKeyBase58;
          let receiptCosts = 0n;
          for (const receipt of receipts) {
            const cost = usdcNumberToUnits(receipt.cost_usdc)!;
            const entries = await stack.tdb.prisma.ledgerEntry.findMany({
              where: { inferenceId: String(receipt.inference_id) },
            });
            expect(-entries.reduce((s, e) => s + e.units, 0n)).toBe(cost);
            receiptCosts += cost;
          }
          const credits = await stack.tdb.prisma.ledgerEntry.aggregate({
            where: { agentPubkey: who, kind: { in: ["payment_credit", "topup_credit"] } },
            _sum: { units: true },
          });
          const paidOnChain = 1_000_000n - (await stack.devnet.usdcBalance(agent.signer.address));
          expect(credits._sum.units ?? 0n).toBe(paidOnChain);
          const balance =
            (
              await stack.tdb.prisma.balance.findUnique({
                where: { agentPubkey_network: { agentPubkey: who, network: DEVNET } },
              })
            )?.units ?? 0n;
          expect(balance).toBe(paidOnChain - receiptCosts);
          expect(await stack.tdb.prisma.creditHold.count({ where: { agentPubkey: who, status: "held" } })).toBe(0);
          const reports = await reconcile(await routeRuntime());
          expect(reports.flatMap((r) => r.mismatches)).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
