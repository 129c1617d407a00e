// The payer's settlement lane on PostgreSQL: one holder at a time across connections, a dead holder's lane is taken
// over once its lease ran out, a send after a verification is seen by the next holder, and a payer whose settlements
// keep failing is refused for a while.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_FAILURES, takeSettlementLane } from "../../payments/settlement-lane";
import { createTestDatabase, type TestDatabase } from "../support/test-db";
import { systemClock } from "../../clock";

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => tdb?.drop());

const source = () => `svm:test:${randomUUID()}`;

describe("takeSettlementLane()", () => {
  it("lets one of many concurrent settlements of a payer hold the lane at a time, and each sees the sends before it", async () => {
    const lane = source();
    const verifiedAt = Date.now();
    let holding = 0;
    let most = 0;
    const seen: boolean[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const taken = await takeSettlementLane(tdb.prisma, lane, randomUUID(), verifiedAt, 60_000, systemClock);
        if (!taken.ok) throw new Error(taken.reason);
        holding++;
        most = Math.max(most, holding);
        seen.push(taken.lane.sentSinceVerify);
        await new Promise((r) => setTimeout(r, 15));
        holding--;
        await taken.lane.release({ sent: true, failed: false });
      }),
    );
    expect(most).toBe(1);
    // The first holder saw no send; every later one saw its predecessor's.
    expect(seen.filter((s) => !s)).toHaveLength(1);
  });

  it("counts a settlement waiting for its payer's lane while it waits, and not one that takes a free lane", async () => {
    const lane = source();
    let waiting = 0;
    let most = 0;
    const gauge = {
      inc: () => void (most = Math.max(most, ++waiting)),
      dec: () => void waiting--,
    };
    const take = () =>
      takeSettlementLane(tdb.prisma, lane, randomUUID(), Date.now(), 60_000, systemClock, undefined, gauge);
    const first = await take();
    if (!first.ok) throw new Error(first.reason);
    expect(most).toBe(0);
    const second = take();
    // The second take reaches its wait in its own time: seconds, at this file's low CPU priority on a busy machine.
    await expect.poll(() => waiting, { timeout: 30_000 }).toBe(1);
    await first.lane.release({ sent: false, failed: false });
    const taken = await second;
    if (!taken.ok) throw new Error(taken.reason);
    await taken.lane.release({ sent: false, failed: false });
    expect(waiting).toBe(0);
    expect(most).toBe(1);
  });

  it("does not count a send released before the verification as sent since, however close", async () => {
    const lane = source();
    for (let i = 0; i < 20; i++) {
      const taken = await takeSettlementLane(tdb.prisma, lane, randomUUID(), 0, 60_000, systemClock);
      if (!taken.ok) throw new Error(taken.reason);
      const sentMs = await taken.lane.release({ sent: true, failed: false });
      // The database's clock right after the release, as a back-to-back call's verification would start.
      const [{ ms }] = await tdb.prisma.$queryRaw<
        [{ ms: number }]
      >`SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS ms`;
      expect(sentMs).toBeLessThanOrEqual(Number(ms));
      const next = await takeSettlementLane(tdb.prisma, lane, randomUUID(), Number(ms), 60_000, systemClock);
      if (!next.ok) throw new Error(next.reason);
      expect(next.lane.sentSinceVerify).toBe(false);
      // The release's answer is the send it recorded, exactly as the next take reads it: none when nothing was sent.
      expect(await next.lane.release({ sent: false, failed: false })).toBeNull();
      const again = await takeSettlementLane(tdb.prisma, lane, randomUUID(), sentMs!, 60_000, systemClock);
      if (!again.ok) throw new Error(again.reason);
      expect(again.lane.sentSinceVerify).toBe(true);
      await again.lane.release({ sent: false, failed: false });
    }
  });

  it("takes over a lane whose holder died once its lease ran out", async () => {
    const lane = source();
    const dead = await takeSettlementLane(tdb.prisma, lane, randomUUID(), Date.now(), 100, systemClock);
    expect(dead.ok).toBe(true);
    // The lease is held in the database's time: its 100 ms pass by moving the hold back, not by waiting them out.
    const [held] = await tdb.prisma.$queryRaw<
      [{ left_ms: number }]
    >`SELECT (extract(epoch from held_until - clock_timestamp()) * 1000)::float8 AS left_ms FROM settlement_lanes WHERE source = ${lane}`;
    expect(held.left_ms).toBeGreaterThan(0);
    expect(held.left_ms).toBeLessThanOrEqual(100);
    await tdb.prisma
      .$executeRaw`UPDATE settlement_lanes SET held_until = held_until - interval '100 milliseconds' WHERE source = ${lane}`;
    const next = await takeSettlementLane(tdb.prisma, lane, randomUUID(), Date.now(), 60_000, systemClock);
    expect(next.ok).toBe(true);
  });

  it(`refuses a payer after ${MAX_FAILURES} failed settlements, with how long to wait`, async () => {
    const lane = source();
    for (let i = 0; i < MAX_FAILURES; i++) {
      const taken = await takeSettlementLane(tdb.prisma, lane, randomUUID(), Date.now(), 60_000, systemClock);
      if (!taken.ok) throw new Error(`refused after ${i} failures`);
      await taken.lane.release({ sent: true, failed: true });
    }
    const refused = await takeSettlementLane(tdb.prisma, lane, randomUUID(), Date.now(), 60_000, systemClock);
    expect(refused).toMatchObject({ ok: false, reason: "payer_refused" });
    expect(refused.ok ? 0 : refused.retryAfterMs).toBeGreaterThan(60_000);
  });

  it("forgets a payer's failures once one of its settlements succeeds", async () => {
    const lane = source();
    for (let i = 0; i < MAX_FAILURES - 1; i++) {
      const taken = await takeSettlementLane(tdb.prisma, lane, randomUUID(), Date.now(), 60_000, systemClock);
      if (!taken.ok) throw new Error(taken.reason);
      await taken.lane.release({ sent: true, failed: i < MAX_FAILURES - 2 });
    }
    const row = await tdb.prisma.settlementLane.findUniqueOrThrow({ where: { source: lane } });
    expect(row.failures).toBe(0);
    expect(row.refusedUntil).toBeNull();
  });
});
