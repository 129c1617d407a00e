// A payment's lease is judged by the runtime's clock, and a stale claim is taken over by exactly one of concurrent
// takers, on PostgreSQL. That a claim is taken over once the clock has passed its lease, and not before, is a unit test
// over the in-memory fakes (server/payments/resume-payment.test.ts).
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
