// The hand-back after a lost database, over fakes: a request that stopped on a lost database hands its payment to the
// retry of the request that paid (a claim's lease ends at once; a settled call becomes unserved, its hold kept), but
// only while the attempt that lost it still holds it: a hand-back arriving after a retry took the payment over
// changes nothing.
import { describe, expect, it } from "vitest";
import type { Payment } from "../db";
import { DatabaseUnavailableError } from "../db/classify-database-error";
import { RETRY_EVERY_MS } from "../db/when-database-back";
import { createPaymentWorld, useWorldDatabase, type PaymentWorld } from "../test/support/fakes/payment-world";
import type { FakePayment } from "../test/support/fakes/fake-chain";
import { releaseIfDatabaseLost } from "./release-after-database-loss";

const database = useWorldDatabase();

/**
 * The request holding `held` stopped on a lost database, and the database answers again: the hand-back runs after its
 * first pause, which the test moves the clock past instead of waiting. Resolves once the runtime logged it done.
 */
async function handBack(world: PaymentWorld, held: Pick<Payment, "id" | "attempt">): Promise<void> {
  const done = world.nextEvent("payment.released_after_database_loss");
  const sleeping = world.clock.sleeping();
  releaseIfDatabaseLost(world.ctx, held, new DatabaseUnavailableError("the database went away"));
  expect(world.clock.sleeping()).toBe(sleeping + 1);
  world.clock.advance(RETRY_EVERY_MS);
  await done;
}

const credits = async (world: PaymentWorld, payment: FakePayment) =>
  (await world.ledger(payment.payer)).filter((e) => e.kind === "payment_credit");

describe("releaseIfDatabaseLost()", () => {
  it("hands a settled call back as unserved with its hold kept, and the retry serves it once without waiting out the lease", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    expect((await world.admit(payment)).kind).toBe("settled");
    const held = await world.row(payment);
    await handBack(world, held);
    const row = await world.row(payment);
    expect(row).toMatchObject({ status: "unserved", failureReason: "database_unavailable", attempt: held.attempt });
    expect((await world.hold(row.id))?.status).toBe("held");
    // The clock moved only past the hand-back's pause: the lease did not run out, and the retry is served all the same.
    expect((await world.call(payment)).error).toBeUndefined();
    expect((await world.row(payment)).status).toBe("served");
    expect(await credits(world, payment)).toHaveLength(1);
    expect(world.upstream.requests).toHaveLength(1);
  });

  it("ends a claim's lease at once: the retry takes it over and settles it once, and the stopped attempt records nothing", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    const settling = world.chain.holdNextSettle();
    const first = world.call(payment);
    await settling.reached;
    const held = await world.row(payment);
    expect(held.status).toBe("claimed");
    await handBack(world, held);
    expect((await world.row(payment)).status).toBe("claimed");
    const retried = await world.call(payment);
    expect(retried.error).toBeUndefined();
    const served = await world.row(payment);
    expect(served.status).toBe("served");
    expect(served.attempt).not.toBe(held.attempt);
    settling.release();
    expect((await first).error?.code).toBe("payment_replay");
    expect(await credits(world, payment)).toHaveLength(1);
    expect(world.chain.calls.filter((c) => c === "settle")).toHaveLength(2);
  });

  it("changes nothing when it arrives after a retry took the payment over", async () => {
    const world = await createPaymentWorld(database());
    const payment = await world.pay();
    expect((await world.admit(payment)).kind).toBe("settled");
    const held = await world.row(payment);
    // The database stayed away past the lease: the retry took the call over and served it.
    await world.toLeaseEnd(payment, 1_000);
    expect((await world.call(payment)).error).toBeUndefined();
    const served = await world.row(payment);
    expect(served.status).toBe("served");
    const ledger = await world.ledger(payment.payer);
    await handBack(world, held);
    expect(await world.row(payment)).toEqual(served);
    expect(await world.ledger(payment.payer)).toEqual(ledger);
  });
});
