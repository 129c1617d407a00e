// The pending sweep over fakes: a payment whose transfer went out and was not confirmed within the wait, and whose
// client does not come back, is finished from the chain once it is older than the sweep's gap on the runtime's clock:
// landed → credited with its hold and left unserved for its retry; dropped past its validBefore → expired; failed on
// chain → failed. The retry then serves an unserved payment once.
import { describe, expect, it } from "vitest";
import { createPaymentWorld, useWorldDatabase, type PaymentWorld } from "../test/support/fakes/payment-world";
import type { FakePayment } from "../test/support/fakes/fake-chain";
import { sweepPendingSettlements } from "./pending-settlement";

const database = useWorldDatabase();

/** A payment whose settlement went out and whose confirmation was not seen: the client was told 502 and left. */
async function pendingPayment(world: PaymentWorld): Promise<FakePayment> {
  const payment = await world.pay();
  world.chain.scriptSettles("unconfirmed");
  expect((await world.call(payment)).error?.code).toBe("settlement_pending");
  expect((await world.row(payment)).status).toBe("pending");
  return payment;
}

/** Past the sweep's gap: a pending row nobody moved for a few seconds is the sweeper's. */
const SWEEP_AGE_MS = 5_000;

describe("sweepPendingSettlements()", () => {
  it("credits a transfer that landed late with its hold, leaves it unserved, and its retry serves it once", async () => {
    const world = await createPaymentWorld(database());
    const payment = await pendingPayment(world);
    const price = BigInt((await world.requirements()).amount);
    // Still out, and too fresh for the sweeper: nothing changes.
    await sweepPendingSettlements(world.ctx);
    expect((await world.row(payment)).status).toBe("pending");
    await world.toRowAge(payment, SWEEP_AGE_MS);
    await sweepPendingSettlements(world.ctx);
    expect((await world.row(payment)).status).toBe("pending");
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(1);
    // The transfer lands with nobody waiting for it.
    const transaction = world.chain.land(payment);
    await sweepPendingSettlements(world.ctx);
    const row = await world.row(payment);
    expect(row).toMatchObject({ status: "unserved", txSignature: transaction });
    expect(await world.ledger(payment.payer)).toEqual([
      { kind: "hold", units: -price },
      { kind: "payment_credit", units: price },
    ]);
    expect((await world.hold(row.id))?.status).toBe("held");
    expect(world.upstream.requests).toHaveLength(0);
    // The client's retry is served from that hold, once; a second sweep finds nothing to do.
    const retried = await world.call(payment);
    expect(retried.error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    await sweepPendingSettlements(world.ctx);
    expect((await world.ledger(payment.payer)).filter((e) => e.kind === "payment_credit")).toHaveLength(1);
    expect(world.upstream.requests).toHaveLength(1);
  });

  it("expires a payment whose transfer was dropped and whose validBefore passed: nothing charged", async () => {
    const world = await createPaymentWorld(database());
    const payment = await pendingPayment(world);
    world.chain.drop(payment);
    world.chain.expire(payment);
    await world.toRowAge(payment, SWEEP_AGE_MS);
    await sweepPendingSettlements(world.ctx);
    expect(await world.row(payment)).toMatchObject({ status: "expired", failureReason: "settlement_expired" });
    expect(await world.ledger(payment.payer)).toEqual([]);
    const { error } = await world.call(payment);
    expect(error?.details.reason).toBe("settlement_expired");
  });

  it("fails a payment whose transfer failed on chain: nothing charged", async () => {
    const world = await createPaymentWorld(database());
    const payment = await pendingPayment(world);
    world.chain.cancel(payment);
    await world.toRowAge(payment, SWEEP_AGE_MS);
    await sweepPendingSettlements(world.ctx);
    expect(await world.row(payment)).toMatchObject({ status: "failed", failureReason: "settlement_failed_on_chain" });
    expect(await world.ledger(payment.payer)).toEqual([]);
  });
});
