import { describe, expect, it } from "vitest";
import { createLogger } from "../log";
import { manualClock } from "../test/support/manual-clock";
import { RecordOutbox, type OutboxLimits, type PendingRecord } from "./record-outbox";

/** Where the outboxes log: nowhere. */
const QUIET = createLogger("silent");
const LIMITS: OutboxLimits = { maxRecords: 3, maxBytes: 1_000, maxWaitMs: 60_000 };
const permanent = () => Object.assign(new Error("unsupported Unicode escape sequence"), { code: "22P05" });
const lost = () => new Error("Connection terminated unexpectedly");

/** A record whose write and give-back answer from the scripts given (one outcome per try; the last repeats). */
function record(
  holdId: string,
  script: { write?: (() => Error | null)[]; giveBack?: (() => Error | null)[]; bytes?: number } = {},
) {
  const calls = { write: 0, giveBack: 0, keep: 0 };
  const run = (steps: (() => Error | null)[] | undefined, n: number) => {
    const step = steps?.[Math.min(n, (steps?.length ?? 1) - 1)];
    const err = step ? step() : null;
    return err ? Promise.reject(err) : Promise.resolve();
  };
  const pending: PendingRecord = {
    holdId,
    paymentId: null,
    network: "solana:test",
    bytes: script.bytes ?? 100,
    write: () => run(script.write, calls.write++),
    giveBack: () => run(script.giveBack, calls.giveBack++),
    keep: async () => void calls.keep++,
  };
  return { pending, calls };
}

describe("RecordOutbox", () => {
  it("writes a record once the database takes it, renewing its lease each round until then", async () => {
    const outbox = new RecordOutbox(manualClock(), QUIET, LIMITS);
    const r = record("a", { write: [lost, lost, () => null] });
    expect(outbox.add(r.pending)).toBe(true);
    await outbox.drain();
    await outbox.drain();
    expect(outbox.has("a")).toBe(true);
    expect(r.calls.keep).toBe(2);
    await outbox.drain();
    expect(outbox.has("a")).toBe(false);
    expect(r.calls).toEqual({ write: 3, giveBack: 0, keep: 2 });
    expect(outbox.size).toBe(0);
    expect(outbox.bytes).toBe(0);
  });

  it("gives back, once, a record the database refuses for good, and never tries to write it again", async () => {
    const outbox = new RecordOutbox(manualClock(), QUIET, LIMITS);
    const r = record("a", { write: [permanent], giveBack: [lost, () => null] });
    outbox.add(r.pending);
    await outbox.drain();
    expect(r.calls).toMatchObject({ write: 1, giveBack: 1 });
    await outbox.drain();
    expect(r.calls).toMatchObject({ write: 1, giveBack: 2 });
    expect(outbox.has("a")).toBe(false);
  });

  it("gives up a record whose give-back is refused for good, or that waited past its bound", async () => {
    const clock = manualClock();
    const outbox = new RecordOutbox(clock, QUIET, LIMITS);
    const refused = record("a", { write: [permanent], giveBack: [permanent] });
    const waiting = record("b", { write: [lost] });
    outbox.add(refused.pending);
    outbox.add(waiting.pending);
    await outbox.drain();
    expect(outbox.has("a")).toBe(false);
    clock.advance(LIMITS.maxWaitMs);
    await outbox.drain();
    expect(outbox.has("b")).toBe(true);
    clock.advance(1);
    await outbox.drain();
    expect(outbox.has("b")).toBe(false);
    expect(outbox.size).toBe(0);
  });

  it("refuses a record past its count or bytes bound, and takes records again once others left", async () => {
    const outbox = new RecordOutbox(manualClock(), QUIET, LIMITS);
    for (const id of ["a", "b", "c"]) expect(outbox.add(record(id, { write: [lost, () => null] }).pending)).toBe(true);
    expect(outbox.add(record("d").pending)).toBe(false);
    await outbox.drain();
    await outbox.drain();
    expect(outbox.size).toBe(0);
    expect(outbox.add(record("big", { bytes: 900 }).pending)).toBe(true);
    expect(outbox.add(record("more", { bytes: 101 }).pending)).toBe(false);
    expect(outbox.bytes).toBe(900);
  });

  it("runs one try of a record at a time, however often it is asked", async () => {
    const outbox = new RecordOutbox(manualClock(), QUIET, LIMITS);
    let release!: () => void;
    let writes = 0;
    outbox.add({ ...record("a").pending, write: () => (writes++, new Promise<void>((r) => (release = r))) });
    const tries = [outbox.settle("a"), outbox.drain(), outbox.settle("a")];
    release();
    await Promise.all(tries);
    expect(writes).toBe(1);
    expect(await outbox.settle("a")).toBe(true);
  });

  it("tries again when asked while a round that then fails is under way: the database may be back by then", async () => {
    const outbox = new RecordOutbox(manualClock(), QUIET, LIMITS);
    let fail!: (err: Error) => void;
    let writes = 0;
    outbox.add({
      ...record("a").pending,
      write: () => (++writes === 1 ? new Promise<void>((_, reject) => (fail = reject)) : Promise.resolve()),
    });
    const background = outbox.drain();
    const asked = outbox.settle("a");
    fail(lost());
    expect(await asked).toBe(true);
    await background;
    expect(writes).toBe(2);
    expect(outbox.has("a")).toBe(false);
  });
});
