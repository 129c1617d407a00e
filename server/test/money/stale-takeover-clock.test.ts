// A payment's lease is judged by the runtime's clock: a claim is taken over once the clock has passed its lease, not
// before, and by exactly one of concurrent takers. The test moves the clock instead of sleeping out the lease.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeOverStale } from "../../payments/payment-store";
import { moveOf } from "../../ledger/payment-transition";
import { manualClock } from "../support/manual-clock";
import { createTestDatabase, type TestDatabase } from "../support/test-db";

const LEASE_MS = 120_000;

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(4);
});
afterAll(async () => tdb?.drop());

async function claimedPayment(updatedAt: Date): Promise<string> {
  const row = await tdb.prisma.payment.create({
    data: {
      idempotencyKey: randomUUID(),
      network: "solana:test",
      payer: "payer",
      payTo: "deposit",
      units: 1_000n,
      purpose: "call",
      route: "chat",
      status: "claimed",
      updatedAt,
    },
  });
  return row.id;
}

describe("takeOverStale()", () => {
  it("leaves a claim whose lease the clock has not passed, and takes it over once the clock moves past it", async () => {
    const clock = manualClock(Date.parse("2026-11-27T12:00:00Z"));
    const id = await claimedPayment(new Date(clock.now()));
    const moves = [moveOf("claimed", { type: "lease-taken-over" })];
    clock.advance(LEASE_MS - 1_000);
    expect(await takeOverStale(tdb.prisma, id, LEASE_MS, [...moves], clock.now())).toBeNull();
    clock.advance(2_000);
    const attempt = await takeOverStale(tdb.prisma, id, LEASE_MS, [...moves], clock.now());
    expect(attempt).toMatch(/^[0-9a-f-]{36}$/);
    // The takeover renewed the lease at the clock's time, and holds the payment as its own attempt: a second taker
    // right after finds it live.
    const row = await tdb.prisma.payment.findUniqueOrThrow({ where: { id } });
    expect(row.updatedAt.getTime()).toBe(clock.now());
    expect(row.attempt).toBe(attempt);
    expect(await takeOverStale(tdb.prisma, id, LEASE_MS, [...moves], clock.now())).toBeNull();
  });

  it("gives a stale claim to exactly one of concurrent takers", async () => {
    const clock = manualClock(Date.parse("2026-11-27T13:00:00Z"));
    const id = await claimedPayment(new Date(clock.now()));
    clock.advance(LEASE_MS + 1);
    const taken = await Promise.all(
      Array.from({ length: 4 }, () =>
        takeOverStale(tdb.prisma, id, LEASE_MS, [moveOf("claimed", { type: "lease-taken-over" })], clock.now()),
      ),
    );
    expect(taken.filter((a) => a !== null)).toHaveLength(1);
  });

  it("rejects malformed input: moves to more than one state", async () => {
    const id = await claimedPayment(new Date());
    await expect(
      takeOverStale(
        tdb.prisma,
        id,
        LEASE_MS,
        [moveOf("settled", { type: "lease-taken-over" }), moveOf("claimed", { type: "lease-taken-over" })],
        Date.now(),
      ),
    ).rejects.toThrow("a statement's moves go to one state");
  });
});
