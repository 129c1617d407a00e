// `reconcile()` against real chains (localnet and anvil) and PostgreSQL: zero drift after real paid calls on Solana
// devnet and Base Sepolia, then each kind of mismatch, planted one at a time, is found and named.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcile } from "../../reconcile/reconcile";
import { startPaidStack, CHAT_URL, type PaidStack } from "../support/paid-stack";
import { routeRuntime } from "../../runtime/route-edge";

let stack: PaidStack;
beforeAll(async () => {
  stack = await startPaidStack({ evm: true, env: { X402_FLAT_PRICE_USDC: "0.001" } });
});
afterAll(async () => stack?.close());

const call = (fetcher: typeof fetch, network: string) =>
  fetcher(CHAT_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "local/echo-1", network, messages: [{ role: "user", content: "count me" }] }),
  });

async function report() {
  const ctx = await routeRuntime();
  return reconcile(ctx);
}

describe("reconcile", () => {
  it("reports zero drift after real paid calls on Solana devnet and Base Sepolia", async () => {
    expect((await call(stack.payingFetch(await stack.newAgent()), "devnet")).status).toBe(200);
    expect((await call(stack.payingFetch(await stack.newAgent()), "devnet")).status).toBe(200);
    expect((await call(stack.evmPayingFetch(await stack.newEvmAgent()), "base-sepolia")).status).toBe(200);
    const reports = await report();
    expect(reports.map((r) => [r.network, r.onChainTransfers, r.recordedPayments, r.mismatches.length])).toEqual([
      [stack.devnet.caip2, 2, 2, 0],
      ["eip155:84532", 1, 1, 0],
    ]);
  });

  it("finds USDC that reached a deposit address with no payment recorded", async () => {
    const funded = await stack.devnet.fundAccount((await routeRuntime()).gateway.facilitator.address, {
      usdcUnits: 5n,
    });
    // Reconcile reads the chain at "confirmed": the funding is processed when it returns, confirmed a slot later.
    await stack.devnet.chain.confirmed(funded.signature);
    await stack.baseSepolia!.fund(stack.evmDeposit!, { usdcUnits: 7n });
    const reports = await report();
    expect(reports[0]!.mismatches).toEqual([
      expect.objectContaining({ kind: "paid_not_recorded", detail: expect.stringContaining("5 units") }),
    ]);
    expect(reports[1]!.mismatches).toEqual([
      expect.objectContaining({ kind: "paid_not_recorded", detail: expect.stringContaining("7 units") }),
    ]);
  });

  it("finds a payment recorded with a wrong amount, one not on chain, and ledger drift", async () => {
    const payments = await stack.tdb.prisma.payment.findMany({
      where: { network: stack.devnet.caip2 },
      orderBy: { createdAt: "asc" },
    });
    await stack.tdb.prisma.payment.update({ where: { id: payments[0]!.id }, data: { units: 999n } });
    await stack.tdb.prisma.ledgerEntry.deleteMany({ where: { paymentId: payments[1]!.id, kind: "payment_credit" } });
    await stack.tdb.prisma.payment.create({
      data: {
        idempotencyKey: "planted",
        txSignature: "5".repeat(88),
        network: stack.devnet.caip2,
        payer: payments[0]!.payer,
        payTo: payments[0]!.payTo,
        units: 1000n,
        purpose: "call",
        route: "chat",
        status: "served",
      },
    });
    const kinds = (await report())[0]!.mismatches.map((m) => m.kind).sort();
    // The chain checks find the amount, the missing credit and the planted row; the money checks find what each does
    // to the ledger: a balance no longer the sum of its entries (the deleted credit), a hold of 1000 for a payment now
    // of 999, and a served payment with no hold at all.
    expect(kinds).toEqual([
      "balance_drift",
      "credit_not_reserved",
      "credit_not_reserved",
      "ledger_drift",
      "ledger_drift",
      "ledger_drift",
      "paid_not_recorded",
      "recorded_not_on_chain",
      "wrong_amount",
    ]);
  });

  it("counts a transfer of a claim still settling as landed and pending, and as paid_not_recorded once the claim failed", async () => {
    const deposit = (await routeRuntime()).gateway.facilitator.address;
    const [first] = await stack.tdb.prisma.payment.findMany({
      where: { network: stack.devnet.caip2 },
      orderBy: { createdAt: "asc" },
      take: 1,
    });
    const claim = await stack.tdb.prisma.payment.create({
      data: {
        idempotencyKey: "in-flight",
        network: stack.devnet.caip2,
        payer: first!.payer,
        payTo: first!.payTo,
        units: 3n,
        purpose: "call",
        route: "chat",
        status: "claimed",
      },
    });
    await stack.devnet.chain.confirmed((await stack.devnet.fundAccount(deposit, { usdcUnits: 3n })).signature);
    const before = (await report())[0]!;
    expect(before.mismatches.filter((m) => m.detail.startsWith("3 units"))).toEqual([]);
    expect([before.pendingClaims, before.pendingLanded]).toEqual([1, 1]);
    await stack.tdb.prisma.payment.update({ where: { id: claim.id }, data: { status: "failed" } });
    const after = (await report())[0]!;
    expect(after.mismatches.filter((m) => m.detail.startsWith("3 units"))).toEqual([
      expect.objectContaining({ kind: "paid_not_recorded" }),
    ]);
    expect([after.pendingClaims, after.pendingLanded]).toEqual([0, 0]);
  });
});
