// Resuming a payment seen before, over fakes: only its own request may use it; a served one gives its stored answer,
// an unserved one is served once, a pending one's fate is read from the chain, an expired one stays refused, and a
// claim or a settled call whose server stopped is taken over by exactly one retry, and only after its lease ran out
// on the runtime's clock.
import { describe, expect, it } from "vitest";
import { UpstreamError } from "../upstream";
import { createPaymentWorld, useWorldDatabase, type PaymentWorld } from "../test/support/fakes/payment-world";
import type { FakePayment } from "../test/support/fakes/fake-chain";

const database = useWorldDatabase();

const settles = (world: PaymentWorld) => world.chain.calls.filter((c) => c === "settle").length;
const credits = async (world: PaymentWorld, payment: FakePayment) =>
  (await world.ledger(payment.payer)).filter((e) => e.kind === "payment_credit");

describe("a retry of a payment seen before", () => {
  it("refuses the payment's header sent with another body, moving nothing", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    expect((await world.call(payment)).error).toBeUndefined();
    const ledger = await world.ledger(payment.payer);
    const { error } = await world.call(payment, { messages: [{ role: "user", content: "another prompt" }] });
    expect(error?.code).toBe("payment_request_mismatch");
    expect(await world.ledger(payment.payer)).toEqual(ledger);
    expect(world.upstream.requests).toHaveLength(1);
  });

  it("serves an unserved payment (its upstream failed) once, from the hold its settlement reserved", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.upstream.script({ fail: new UpstreamError("http_error", "the provider answered 500", 500) });
    const failed = await world.call(payment);
    expect(failed.error?.code).toBe("upstream_error");
    const row = await world.row(payment);
    expect(row.status).toBe("unserved");
    expect((await world.hold(row.id))?.status).toBe("held");
    const retried = await world.call(payment);
    expect(retried.error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    expect(settles(world)).toBe(1);
    expect(await credits(world, payment)).toHaveLength(1);
    expect((await world.hold(row.id))?.status).toBe("captured");
    // A third send is the stored answer, not a third call.
    expect((await world.call(payment)).error).toBeUndefined();
    expect(world.upstream.requests).toHaveLength(2);
  });

  it("leaves a settled call whose server stopped to it until the lease runs out, then one retry serves it", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    // The server settled and credited the payment, then stopped before serving it.
    expect((await world.admit(payment)).kind).toBe("settled");
    await world.toLeaseEnd(payment, -1_000);
    const early = await world.call(payment);
    expect(early.error?.code).toBe("payment_replay");
    expect((await world.row(payment)).status).toBe("settled");
    await world.toLeaseEnd(payment, 1_000);
    const late = await world.call(payment);
    expect(late.error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    expect(settles(world)).toBe(1);
    expect(await credits(world, payment)).toHaveLength(1);
    expect(world.upstream.requests).toHaveLength(1);
  });

  it("takes over a claim whose server stopped mid-settlement only after its lease, and the first attempt writes nothing after", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    const held = world.chain.holdNextSettle();
    const first = world.call(payment);
    await held.reached;
    expect((await world.row(payment)).status).toBe("claimed");
    const early = await world.call(payment);
    expect(early.error?.code).toBe("payment_replay");
    await world.toLeaseEnd(payment, -1_000);
    expect((await world.call(payment)).error?.code).toBe("payment_replay");
    await world.toLeaseEnd(payment, 1_000);
    // The retry finds nothing on chain, settles the payment itself and serves it.
    const retried = await world.call(payment);
    expect(retried.error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    // The stopped attempt wakes: its send finds the authorization spent, and it may record nothing more.
    held.release();
    const stale = await first;
    expect(stale.error?.code).toBe("payment_replay");
    expect((await world.row(payment)).status).toBe("served");
    expect(await credits(world, payment)).toHaveLength(1);
    expect(world.upstream.requests).toHaveLength(1);
  });

  it("serves a pending payment's retry once its transfer landed, and answers pending while it has not", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("unconfirmed");
    expect((await world.call(payment)).error?.code).toBe("settlement_pending");
    const still = await world.call(payment);
    expect(still.error?.code).toBe("settlement_pending");
    expect((await world.row(payment)).status).toBe("pending");
    const transaction = world.chain.land(payment);
    const served = await world.call(payment);
    expect(served.error).toBeUndefined();
    expect(await world.row(payment)).toMatchObject({ status: "served", txSignature: transaction });
    expect(await credits(world, payment)).toHaveLength(1);
    expect(settles(world)).toBe(1);
  });

  it("credits nothing for a transfer a reorg took back: the retry is pending again until it lands for good", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("unconfirmed");
    expect((await world.call(payment)).error?.code).toBe("settlement_pending");
    world.chain.land(payment);
    world.chain.reorg(payment);
    expect((await world.call(payment)).error?.code).toBe("settlement_pending");
    expect((await world.row(payment)).status).toBe("pending");
    expect(await world.ledger(payment.payer)).toEqual([]);
    world.chain.land(payment);
    expect((await world.call(payment)).error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    expect(await credits(world, payment)).toHaveLength(1);
  });

  it("refuses a pending payment's retry with settlement_expired once its transfer was dropped and its validBefore passed", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("unconfirmed");
    expect((await world.call(payment)).error?.code).toBe("settlement_pending");
    world.chain.drop(payment);
    world.chain.expire(payment);
    const { error } = await world.call(payment);
    expect(error?.code).toBe("payment_required");
    expect(error?.details.reason).toBe("settlement_expired");
    expect(await world.row(payment)).toMatchObject({
      status: "expired",
      failureReason: "settlement_expired",
      pendingPayload: null,
    });
    expect(await world.ledger(payment.payer)).toEqual([]);
    // Expired for good: the same header again is the same refusal, and nothing is sent.
    expect((await world.call(payment)).error?.details.reason).toBe("settlement_expired");
    expect(settles(world)).toBe(1);
  });

  it("refuses a pending payment's retry with a clean 402 once its transfer failed on chain", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    world.chain.scriptSettles("unconfirmed");
    expect((await world.call(payment)).error?.code).toBe("settlement_pending");
    world.chain.cancel(payment);
    const { error } = await world.call(payment);
    expect(error?.code).toBe("payment_required");
    expect(await world.row(payment)).toMatchObject({ status: "failed", failureReason: "settlement_failed_on_chain" });
    expect(await world.ledger(payment.payer)).toEqual([]);
  });
});
