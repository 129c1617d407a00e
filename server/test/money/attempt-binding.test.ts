// A payment's writes belong to the request that holds it (its attempt): the claim, a takeover of a dead server's claim
// or call, and an unserved retry each make a new attempt, and every later write of a holder (its lease renewal, a
// failure it records, the hand-back after it lost the database) requires its own. So a write that comes late, after
// another request took the payment over, changes nothing: a request that lost the database cannot, a minute later,
// reopen a payment another request has begun to serve.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renewLease } from "../../ledger/credit-holds";
import {
  markFailed,
  markPending,
  markUnserved,
  releaseAfterDatabaseLoss,
  takeOverStale,
} from "../../payments/payment-store";
import { moveOf, movesOf } from "../../ledger/payment-transition";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(2);
});
afterAll(async () => tdb?.drop());

const LEASE_MS = 60_000;

/** A payment in `status`, held by a fresh attempt whose lease ran out an hour ago; its id and that attempt. */
async function heldPayment(status: "claimed" | "settled" | "serving"): Promise<{ id: string; attempt: string }> {
  const id = randomUUID();
  const attempt = randomUUID();
  await tdb.prisma.$executeRaw`
    INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status, attempt, updated_at)
    VALUES (${id}::uuid, ${`key-${id}`}, 'solana:devnet', 'payer', 'deposit', 1000, 'call', 'chat', ${status}, ${attempt}::uuid, now() - interval '1 hour')`;
  return { id, attempt };
}
const TAKEN_OVER = { type: "lease-taken-over" } as const;
const DATABASE_LOST = movesOf({ type: "database-lost" });
const FAILED = moveOf("claimed", { type: "failed" });
const row = (id: string) => tdb.prisma.payment.findUniqueOrThrow({ where: { id } });

describe("a payment's attempt", () => {
  it("refuses a late hand-back, failure mark or renewal of a serving payment from the attempt another request took it from", async () => {
    const late = await heldPayment("serving");
    const taken = await takeOverStale(tdb.prisma, late.id, LEASE_MS, [moveOf("serving", TAKEN_OVER)], Date.now());
    expect(taken).not.toBeNull();
    const before = await row(late.id);
    expect(before.attempt).toBe(taken);

    expect(await releaseAfterDatabaseLoss(tdb.prisma, late, DATABASE_LOST)).toBe(0);
    await markUnserved(tdb.prisma, late, movesOf({ type: "upstream-failed" }), "upstream_error");
    await renewLease(tdb.prisma, late.id, late, LEASE_MS);
    expect(await row(late.id)).toMatchObject({ status: "serving", attempt: taken, updatedAt: before.updatedAt });

    // The attempt that holds it now may hand it back.
    expect(await releaseAfterDatabaseLoss(tdb.prisma, { id: late.id, attempt: taken }, DATABASE_LOST)).toBe(1);
    expect(await row(late.id)).toMatchObject({ status: "unserved", failureReason: "database_unavailable" });
  });

  it("refuses a late failure or pending mark of a claim from the attempt a takeover replaced", async () => {
    const late = await heldPayment("claimed");
    const taken = await takeOverStale(tdb.prisma, late.id, LEASE_MS, [moveOf("claimed", TAKEN_OVER)], Date.now());
    expect(taken).not.toBeNull();
    await markFailed(tdb.prisma, late, FAILED, "settlement_error");
    const payload = { x402Version: 2, accepted: {}, payload: { transaction: "AQ==" } } as never;
    expect(
      await markPending(tdb.prisma, late, moveOf("claimed", { type: "pending" }), {
        transaction: "tx-late",
        payload,
        beneficiary: null,
      }),
    ).toEqual({ ok: false, reason: "payment_not_claimed" });
    expect(await row(late.id)).toMatchObject({ status: "claimed", attempt: taken, txSignature: null });
    await markFailed(tdb.prisma, { id: late.id, attempt: taken }, FAILED, "settlement_error");
    expect(await row(late.id)).toMatchObject({ status: "failed" });
  });

  it("gives a stale payment to one of many concurrent takers, whose attempt alone then holds it", async () => {
    const stale = await heldPayment("settled");
    const attempts = await Promise.all(
      Array.from({ length: 8 }, () =>
        takeOverStale(tdb.prisma, stale.id, LEASE_MS, [moveOf("settled", TAKEN_OVER)], Date.now()),
      ),
    );
    const won = attempts.filter((a): a is string => a !== null);
    expect(won).toHaveLength(1);
    for (const loser of [stale.attempt, randomUUID()])
      expect(await releaseAfterDatabaseLoss(tdb.prisma, { id: stale.id, attempt: loser }, DATABASE_LOST)).toBe(0);
    expect(await row(stale.id)).toMatchObject({ status: "serving", attempt: won[0] });
  });
});
