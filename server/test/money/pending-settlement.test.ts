// A broadcast whose confirmation was not seen in time is a pending settlement, not a failure. On PostgreSQL with real
// local chains (real slot timing, seeded faults that drop or delay every send):
// - the request answers 502 settlement_pending with the transaction and when to retry;
// - a retry with the same header, once the transfer landed, is served exactly once and charged once; the same request
//   sent again after that gets the stored answer and receipt (X-Answer-Replayed), and nothing moves;
// - a transfer that can never land (blockhash expired, never seen) is a clean 402 settlement_expired, nothing charged,
//   and the payment is `expired`;
// - nobody retrying, a fresh app context's sweeper finishes it (chat: unserved, then served once; top-up: credited);
// - concurrent retries of one pending payment serve it once; Base behaves the same way.
import { testConfig } from "../support/env";
import { closeRouteRuntime, routeRuntime } from "../../runtime/route-edge";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { createPublicClient, createWalletClient, defineChain, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { EIP3009_USDC_ABI } from "../../../devtools/anvil";
import { FaultDice } from "../../../devtools/localnet/fault-profile";
import { createFacilitator, type Facilitator } from "../../facilitator/create-facilitator";
import { solanaFeeLamports } from "../../facilitator/settlement-fee";
import { reconcile } from "../../reconcile/reconcile";
import { parseReceiptText } from "../../verify";
import { authorizationHeader } from "../support/eip3009-header";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { landDirectly, until } from "../support/land-directly";
import { createLogger } from "../../log";

const PRICE = 1000n;
const local = { model: "local/echo-1", messages: [{ role: "user", content: "pending" }] };
const env = { X402_FLAT_PRICE_USDC: "0.001", SETTLEMENT_CONFIRM_WAIT_MS: "600" };

/** signet_settlements_total for one network, purpose and outcome. */
async function settlements(network: string, purpose: string, outcome: string): Promise<number> {
  const { values } = await (await routeRuntime()).metrics.settlements.get();
  return (
    values.find((v) => v.labels.network === network && v.labels.purpose === purpose && v.labels.outcome === outcome)
      ?.value ?? 0
  );
}

async function paymentOf(stack: PaidStack, payer: string) {
  return stack.tdb.prisma.payment.findFirstOrThrow({ where: { payer } });
}

async function ledgerOf(stack: PaidStack, agent: string) {
  return stack.tdb.prisma.ledgerEntry.findMany({ where: { agentPubkey: agent }, orderBy: { createdAt: "asc" } });
}

/** What moves when an agent is served or credited: its ledger entries, its logged calls, its balances. */
async function movedFor(stack: PaidStack, agent: string) {
  return {
    ledger: await stack.tdb.prisma.ledgerEntry.count({ where: { agentPubkey: agent } }),
    calls: await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent } }),
    balances: (await stack.tdb.prisma.balance.findMany({ where: { agentPubkey: agent } })).map((b) => [
      b.network,
      b.units,
    ]),
  };
}

function receiptOf(res: Response): unknown {
  const parsed = parseReceiptText(res.headers.get("x-service-receipt")!);
  if (!parsed.ok) throw new Error("no receipt");
  return parsed.receipt;
}

/**
 * The same request sent again after `served` answered it: the stored answer (the same completion id) and the same
 * receipt, marked X-Answer-Replayed, and nothing moves.
 */
async function expectStoredAnswer(
  stack: PaidStack,
  agent: string,
  served: Response,
  send: () => Promise<Response>,
): Promise<void> {
  expect(served.status).toBe(200);
  const servedId = ((await served.clone().json()) as { id: string }).id;
  const before = await movedFor(stack, agent);
  const again = await send();
  expect(again.status).toBe(200);
  expect(again.headers.get("x-answer-replayed")).toBe("true");
  expect(((await again.json()) as { id: string }).id).toBe(servedId);
  expect(receiptOf(again)).toEqual(receiptOf(served));
  expect(await movedFor(stack, agent)).toEqual(before);
}

describe("a Solana settlement whose every send is dropped", () => {
  let stack: PaidStack;
  let facilitator: Facilitator;
  beforeAll(async () => {
    // A blockhash lives 150 slots × 25 ms = 3.75 s; every send over RPC is answered and dropped.
    stack = await startPaidStack({
      timing: "real",
      env,
      devnet: { timing: "real", slotMs: 25, faults: { seed: 7, dropSendRate: 1 } },
    });
    facilitator = await createFacilitator(testConfig());
  });
  afterAll(async () => stack?.close());

  const pay = async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: local })),
      stack.devnet.url,
    );
    return { agent, header, send: () => stack.chat({ body: local, headers: { "X-Payment": header } }) };
  };

  it("answers 502 settlement_pending, then serves the retry once after the transfer landed, charging once and paying one fee", async () => {
    const { agent, header, send } = await pay();
    const feePayerBefore = stack.devnet.chain.getAccount(facilitator.address)!.lamports;
    const counted = {
      pending: await settlements(stack.devnet.caip2, "call", "pending"),
      recovered: await settlements(stack.devnet.caip2, "call", "recovered"),
    };
    const first = await send();
    expect(first.status).toBe(502);
    expect(first.headers.get("retry-after")).toBe("2");
    const body = (await first.json()) as {
      error: { code: string; transaction: string; network: string; retry_after: number };
    };
    expect(body).toMatchObject({ error: { code: "settlement_pending", network: stack.devnet.caip2, retry_after: 2 } });
    const pending = await paymentOf(stack, agent.address);
    expect(pending).toMatchObject({ status: "pending", txSignature: body.error.transaction });
    expect(pending.pendingPayload).not.toBeNull();
    expect(pending.pendingBlockhash).not.toBeNull();
    expect(await ledgerOf(stack, agent.address)).toHaveLength(0);

    expect(await landDirectly(stack, facilitator, header)).toBe(body.error.transaction);
    // Landed but not yet recorded: reconcile lists it as pending, not as drift.
    const [report] = await reconcile(
      { db: stack.tdb.prisma, config: stack.config, chains: { facilitator }, log: createLogger("silent") },
      { networks: ["solana-devnet"] },
    );
    expect(report).toMatchObject({ pendingSettlements: 1, pendingLanded: 1, mismatches: [] });
    const retry = await send();
    expect(retry.status).toBe(200);
    await expectStoredAnswer(stack, agent.address, retry, send);

    const done = await paymentOf(stack, agent.address);
    expect(done).toMatchObject({
      status: "served",
      txSignature: body.error.transaction,
      pendingPayload: null,
      pendingBlockhash: null,
    });
    expect((await ledgerOf(stack, agent.address)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect(await settlements(stack.devnet.caip2, "call", "pending")).toBe(counted.pending + 1);
    expect(await settlements(stack.devnet.caip2, "call", "recovered")).toBe(counted.recovered + 1);
    const fee = solanaFeeLamports(decodePaymentSignatureHeader(header))!;
    expect(feePayerBefore - stack.devnet.chain.getAccount(facilitator.address)!.lamports).toBe(fee);
  });

  it("refuses the retry with a clean 402 settlement_expired once the blockhash expired unseen: nothing charged, the payment expired", async () => {
    const { agent, send } = await pay();
    const expiredBefore = await settlements(stack.devnet.caip2, "call", "expired");
    expect((await send()).status).toBe(502);
    const pending = await paymentOf(stack, agent.address);
    await until("the blockhash to expire", () => !stack.devnet.chain.isBlockhashValid(pending.pendingBlockhash!));
    for (let i = 0; i < 2; i++) {
      const retry = await send();
      expect(retry.status).toBe(402);
      expect(await retry.json()).toMatchObject({ code: "payment_required", reason: "settlement_expired" });
    }
    expect(await paymentOf(stack, agent.address)).toMatchObject({
      status: "expired",
      failureReason: "settlement_expired",
      pendingPayload: null,
      clientPaymentId: null,
    });
    expect(await settlements(stack.devnet.caip2, "call", "expired")).toBe(expiredBefore + 1);
    expect(await ledgerOf(stack, agent.address)).toHaveLength(0);
    expect(await stack.tdb.prisma.balance.findFirst({ where: { agentPubkey: agent.address } })).toBeNull();
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n);
  });

  it("serves one of two concurrent retries of a pending payment, and credits it once", async () => {
    const { agent, header, send } = await pay();
    expect((await send()).status).toBe(502);
    await landDirectly(stack, facilitator, header);
    const answers = await Promise.all([send(), send()]);
    // One is served; the other is refused while that one is processed, or, once it was served, gets its stored answer.
    const served = answers.filter((r) => r.status === 200 && r.headers.get("x-answer-replayed") === null);
    expect(served, JSON.stringify(answers.map((r) => r.status))).toHaveLength(1);
    const other = answers.find((r) => r !== served[0])!;
    if (other.status === 200) {
      expect(other.headers.get("x-answer-replayed")).toBe("true");
      expect(((await other.json()) as { id: string }).id).toBe(((await served[0]!.json()) as { id: string }).id);
    } else {
      expect(other.status).toBe(409);
      expect(await other.json()).toMatchObject({ error: { code: "payment_replay" } });
    }
    expect(await stack.tdb.prisma.inferenceLog.count({ where: { agentPubkey: agent.address } })).toBe(1);
    expect((await ledgerOf(stack, agent.address)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
    expect(await paymentOf(stack, agent.address)).toMatchObject({ status: "served" });
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
  });

  it("after a restart, the sweeper credits a landed chat payment with its hold (unserved), and the retry serves it once", async () => {
    const { agent, header, send } = await pay();
    expect((await send()).status).toBe(502);
    await landDirectly(stack, facilitator, header);
    await closeRouteRuntime();
    const { routeRuntime } = await import("../../runtime/route-edge");
    await routeRuntime();
    await until("the sweeper", async () => (await paymentOf(stack, agent.address)).status === "unserved");
    const entries = await ledgerOf(stack, agent.address);
    // One statement wrote both: the order of the two rows is not defined.
    expect(entries.map((e) => [e.kind, e.units]).sort()).toEqual([
      ["hold", -PRICE],
      ["payment_credit", PRICE],
    ]);
    await expectStoredAnswer(stack, agent.address, await send(), send);
    expect((await ledgerOf(stack, agent.address)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
  });

  it("after a restart, the sweeper credits a landed top-up, and its retry gets the top-up's answer, crediting nothing more", async () => {
    const agent = await stack.newAgent();
    const topUp = (headers: Record<string, string> = {}) =>
      topUpRoute(
        new Request("http://signet.test/api/v1/credits", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ amount_usdc: "0.002" }),
        }),
        {},
      );
    const challenge: PaymentRequired = await challengeOf(await topUp());
    const header = await buildPaymentHeader(agent, challenge, stack.devnet.url);
    const first = await topUp({ "X-Payment": header });
    expect(first.status).toBe(502);
    expect(await first.json()).toMatchObject({ error: { code: "settlement_pending" } });
    await landDirectly(stack, facilitator, header);
    await closeRouteRuntime();
    const { routeRuntime } = await import("../../runtime/route-edge");
    await routeRuntime();
    await until("the sweeper", async () => (await paymentOf(stack, agent.address)).status === "served");
    const balance = await stack.tdb.prisma.balance.findFirstOrThrow({ where: { agentPubkey: agent.address } });
    expect(balance.units).toBe(2_000n);
    const before = await movedFor(stack, agent.address);
    const again = await topUp({ "X-Payment": header });
    expect(again.status).toBe(200);
    expect(again.headers.get("x-answer-replayed")).toBe("true");
    const payment = await paymentOf(stack, agent.address);
    expect(await again.json()).toMatchObject({
      agent_pubkey: agent.address,
      amount_usdc: "0.002",
      balance_usdc: "0.002",
      tx_signature: payment.txSignature,
    });
    expect(await movedFor(stack, agent.address)).toEqual(before);
    expect((await ledgerOf(stack, agent.address)).filter((e) => e.kind === "topup_credit")).toHaveLength(1);
  });
});

describe("a Solana settlement whose first send is dropped", () => {
  let stack: PaidStack;
  beforeAll(async () => {
    // A seed whose first send is dropped and whose second lands (the dice are a pure function of the seed).
    let seed = 0;
    for (const dice = (s: number) => new FaultDice({ seed: s, dropSendRate: 0.5 }); ; seed++) {
      const d = dice(seed);
      if (d.sendFate().kind === "drop" && d.sendFate().kind === "land") break;
    }
    stack = await startPaidStack({
      timing: "real",
      env: { ...env, SETTLEMENT_CONFIRM_WAIT_MS: "4000" },
      devnet: { timing: "real", slotMs: 25, faults: { seed, dropSendRate: 0.5 } },
    });
  });
  afterAll(async () => stack?.close());

  it("is sent again within the wait and settles: the call is served, never pending", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: local })),
      stack.devnet.url,
    );
    const res = await stack.chat({ body: local, headers: { "X-Payment": header } });
    expect(res.status).toBe(200);
    expect(stack.devnet.chain.faults!.log().counts.drop).toBe(1);
    expect(await paymentOf(stack, agent.address)).toMatchObject({ status: "served" });
  });
});

describe("a Solana settlement confirmed after the wait", () => {
  let stack: PaidStack;
  beforeAll(async () => {
    // Every send lands 1.5 s late: past the 600 ms wait, well inside the blockhash's 3.75 s.
    stack = await startPaidStack({
      timing: "real",
      env,
      devnet: { timing: "real", slotMs: 25, faults: { seed: 11, delaySendRate: 1, confirmDelayMs: [1500, 1500] } },
    });
  });
  afterAll(async () => stack?.close());

  it("is pending, lands, and the retry is served once; a second retry gets its stored answer", async () => {
    const agent = await stack.newAgent();
    const header = await buildPaymentHeader(
      agent,
      await challengeOf(await stack.chat({ body: local })),
      stack.devnet.url,
    );
    const send = () => stack.chat({ body: local, headers: { "X-Payment": header } });
    const first = await send();
    expect(first.status).toBe(502);
    const { transaction } = ((await first.json()) as { error: { transaction: string } }).error;
    await stack.devnet.chain.confirmed(transaction);
    await expectStoredAnswer(stack, agent.address, await send(), send);
    expect(await stack.devnet.usdcBalance(agent.address)).toBe(1_000_000n - PRICE);
    expect((await ledgerOf(stack, agent.address)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
  });
});

describe("a Base settlement whose transaction is dropped", () => {
  let stack: PaidStack;
  beforeAll(async () => {
    // Base's own 2 s blocks: the re-broadcast gap and validBefore are measured against them.
    stack = await startPaidStack({
      timing: "real",
      env: { ...env, SETTLEMENT_CONFIRM_WAIT_MS: "1500" },
      evm: true,
      evmFaults: { seed: 5, dropSendRate: 1 },
    });
  });
  afterAll(async () => stack?.close());

  it("is pending, and once the same authorization is spent the retry is served once", async () => {
    const body = { ...local, network: "base-sepolia" };
    const account = await stack.newEvmAgent();
    const header = await authorizationHeader(account, await challengeOf(await stack.chat({ body })));
    const send = () => stack.chat({ body, headers: { "X-Payment": header } });
    const first = await send();
    expect(first.status).toBe(502);
    expect(await first.json()).toMatchObject({ error: { code: "settlement_pending", network: "eip155:84532" } });
    const pending = await stack.tdb.prisma.payment.findFirstOrThrow({
      where: { payer: account.address.toLowerCase() },
    });
    expect(pending.status).toBe("pending");
    expect(pending.pendingValidBefore).not.toBeNull();
    // A retry past the re-broadcast gap sends no second transaction for the authorization: the relayer keeps
    // broadcasting its recorded one (same bytes, same nonce).
    await new Promise((r) => setTimeout(r, 4_000));
    expect((await send()).status).toBe(502);
    expect((await stack.tdb.prisma.evmRelay.findMany()).map((r) => r.txHash)).toEqual([pending.txSignature]);

    // Anyone may submit the authorization: a relay of ours, past the RPC that dropped it, lands it.
    const payload = decodePaymentSignatureHeader(header) as PaymentPayload & {
      payload: {
        signature: `0x${string}`;
        authorization: {
          from: `0x${string}`;
          to: `0x${string}`;
          value: string;
          validAfter: string;
          validBefore: string;
          nonce: `0x${string}`;
        };
      };
    };
    const relay = privateKeyToAccount(generatePrivateKey());
    const chain = stack.baseSepolia!;
    await chain.fund(relay.address, { wei: 10n ** 17n });
    const wallet = createWalletClient({
      account: relay,
      chain: defineChain({
        id: 84532,
        name: "base-sepolia",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [chain.faultFreeUrl] } },
      }),
      transport: http(chain.faultFreeUrl),
    });
    const a = payload.payload.authorization;
    const relayed = await wallet.writeContract({
      address: chain.usdc,
      abi: EIP3009_USDC_ABI,
      functionName: "transferWithAuthorization",
      args: [
        a.from,
        a.to,
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce,
        payload.payload.signature,
      ],
    });
    // Spent means mined: sent, it may wait in the mempool for the next 2 s block, past the retry's confirmation wait.
    await createPublicClient({ transport: http(chain.faultFreeUrl) }).waitForTransactionReceipt({ hash: relayed });

    await expectStoredAnswer(stack, account.address.toLowerCase(), await send(), send);
    expect(await chain.usdcBalance(account.address)).toBe(1_000_000n - PRICE);
    expect(
      await stack.tdb.prisma.ledgerEntry.count({
        where: { agentPubkey: account.address.toLowerCase(), kind: "payment_credit" },
      }),
    ).toBe(1);
  });
});
