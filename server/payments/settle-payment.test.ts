// Settlement over fakes: what the chain says after the facilitator sends a claimed payment is recorded in one
// statement (landed → settled with its credit and the call's hold; not confirmed within the wait → pending; sent and
// never able to land → expired; failed on chain or refused → failed), and a settlement re-checks the chain when
// another send of its payer went out since it verified.
import { describe, expect, it } from "vitest";
import { createPaymentWorld, useWorldDatabase } from "../test/support/fakes/payment-world";
import { LANE_WAIT_MS } from "./settlement-lane";

const database = useWorldDatabase();

describe("settling a claimed payment", () => {
  it("records a landed settlement as settled: the price credited and held for the call, in one statement", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    const price = BigInt((await world.requirements()).amount);
    const outcome = await world.admit(payment);
    expect(outcome.kind).toBe("settled");
    const transaction = world.chain.spendOf(payment).transaction;
    expect(await world.row(payment)).toMatchObject({
      status: "settled",
      txSignature: transaction,
      failureReason: null,
    });
    expect(await world.ledger(payment.payer)).toEqual([
      { kind: "hold", units: -price },
      { kind: "payment_credit", units: price },
    ]);
    expect(await world.balance(payment.payer)).toBe(0n);
    expect(await world.hold((await world.row(payment)).id)).toEqual({
      status: "held",
      units: price,
      chargedUnits: null,
    });
  });

  it("answers 502 settlement_pending when the confirmation is not seen within the wait, keeping what recovery needs", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("unconfirmed");
    const { error } = await world.call(payment);
    expect(error?.code).toBe("settlement_pending");
    const sent = world.chain.spendOf(payment).transaction;
    expect(error?.details.transaction).toBe(sent);
    const row = await world.row(payment);
    expect(row).toMatchObject({ status: "pending", txSignature: sent });
    expect(row.pendingPayload).not.toBeNull();
    expect(await world.ledger(payment.payer)).toEqual([]);
    expect(world.upstream.requests).toHaveLength(0);
    // Left pending, it would be another test's sweep's work: it lands, and its retry is served.
    world.chain.land(payment);
    expect((await world.call(payment)).error).toBeUndefined();
  });

  it("records a sent transaction whose validBefore passed unseen as expired: a clean 402, nothing charged", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("expire");
    const { error } = await world.call(payment);
    expect(error?.code).toBe("payment_required");
    expect(error?.details.reason).toBe("settlement_expired");
    expect(await world.row(payment)).toMatchObject({ status: "expired", failureReason: "settlement_expired" });
    expect(await world.ledger(payment.payer)).toEqual([]);
    // An expired payment is never claimed again: the same header gets the same answer, with nothing sent.
    const again = await world.call(payment);
    expect(again.error?.details.reason).toBe("settlement_expired");
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(1);
  });

  it("records a settlement that failed on chain as failed, nothing credited", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("fail");
    const { error } = await world.call(payment);
    expect(error?.code).toBe("payment_required");
    expect(await world.row(payment)).toMatchObject({
      status: "failed",
      failureReason: "transaction_failed",
      clientPaymentId: null,
    });
    expect(await world.ledger(payment.payer)).toEqual([]);
    expect(world.upstream.requests).toHaveLength(0);
  });

  it("records a settlement refused before sending as failed, so the same payment may be claimed again", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("refuse");
    expect((await world.call(payment)).error?.code).toBe("payment_required");
    expect((await world.row(payment)).status).toBe("failed");
    expect(world.chain.spendOf(payment).state).toBe("unused");
    // Nothing moved: the payment's retry claims it again and is served.
    expect((await world.call(payment)).error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(2);
  });

  it("asks the chain when the facilitator throws mid-settle, and fails the claim when nothing landed", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("throw");
    const { error } = await world.call(payment);
    // The chain shows no transfer: the claim is failed, and nothing was charged.
    expect(error?.code).toBe("payment_required");
    expect(await world.row(payment)).toMatchObject({ status: "failed", failureReason: "settlement_error" });
    expect(world.chain.calls).toContain("readContract");
    expect(await world.ledger(payment.payer)).toEqual([]);
  });

  it("records a transfer that landed though the facilitator threw: a refusal is no proof that nothing moved", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("land-then-throw");
    const { error } = await world.call(payment);
    expect(error).toBeUndefined();
    const transaction = world.chain.spendOf(payment).transaction;
    expect(await world.row(payment)).toMatchObject({ status: "served", txSignature: transaction });
    expect((await world.ledger(payment.payer)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
  });

  it("refuses a settlement whose payer's lane stays busy for the whole wait: 429, the claim failed, never sent", async () => {
    const world = await createPaymentWorld(database());
    const first = await world.pay();
    const second = await world.pay({ payer: first.payer });
    const settling = world.chain.holdNextSettle();
    const firstCall = world.call(first);
    await settling.reached;
    // The second payment waits for the lane the first one's settlement holds; the wait runs on the clock.
    const waiting = world.clock.nextSleep();
    const late = world.call(second);
    await waiting;
    world.clock.advance(LANE_WAIT_MS);
    const { error } = await late;
    expect(error?.code).toBe("rate_limited");
    expect(error?.details.reason).toBe("lane_busy");
    expect(await world.row(second)).toMatchObject({ status: "failed", failureReason: "lane_busy" });
    settling.release();
    expect((await firstCall).error).toBeUndefined();
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(1);
    expect(world.chain.spendOf(second).state).toBe("unused");
    expect((await world.ledger(first.payer)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
  });

  it("re-checks the chain before sending when another send of the payer went out since it verified", async () => {
    const world = await createPaymentWorld(database());
    // The payer is funded for one call and sends two payments.
    const first = await world.pay();
    const second = await world.pay({ payer: first.payer, fund: false });
    const held = world.chain.holdNextVerify();
    const late = world.call(second);
    await held.reached;
    // While the second payment's verification is out, the first is settled and served.
    expect((await world.call(first)).error).toBeUndefined();
    world.clock.advance(1_000);
    held.release();
    const { error } = await late;
    expect(error?.code).toBe("payment_required");
    expect(error?.details.reason).toBe("insufficient_balance");
    // One settle went out: the second was refused by its re-check (a verification), never sent.
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(1);
    expect(world.chain.calls.filter((c) => c === "verify")).toHaveLength(3);
    expect(await world.row(second)).toMatchObject({ status: "failed", failureReason: "insufficient_balance" });
    expect(world.chain.spendOf(second).state).toBe("unused");
    expect((await world.ledger(first.payer)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
  });
});
