// When a request's checks began by the database's clock: the estimate from the claim's statement, raised past this
// process's own last send on the same lane when that send committed before the checks began.
import { describe, expect, it } from "vitest";
import { checksBeganMs, noteLaneSend } from "./settlement-lane";
import type { LaneSends } from "../context/runtime";
import { manualClock } from "../test/support/manual-clock";

const SENT_MS = 1_795_000_000_000.123;

describe("checksBeganMs()", () => {
  it("raises a late estimate past this process's send that committed before the checks began", () => {
    const clock = manualClock();
    const sends: LaneSends = new Map();
    noteLaneSend(sends, "lane-a", SENT_MS, clock);
    clock.advance(5);
    const began = checksBeganMs(sends, "lane-a", SENT_MS - 20, clock.monotonic());
    expect(began).toBeGreaterThan(SENT_MS);
    // The lane's last send is that one: not "sent since the checks began".
    expect(SENT_MS >= began).toBe(false);
  });

  it("keeps the estimate when that send committed after the checks began, at the same reading, on another lane, or never", () => {
    const clock = manualClock();
    const sends: LaneSends = new Map();
    const checkedFrom = clock.monotonic();
    clock.advance(5);
    noteLaneSend(sends, "lane-a", SENT_MS, clock);
    expect(checksBeganMs(sends, "lane-a", SENT_MS - 20, checkedFrom)).toBe(SENT_MS - 20);
    expect(checksBeganMs(sends, "lane-a", SENT_MS - 20, clock.monotonic())).toBe(SENT_MS - 20);
    clock.advance(1);
    expect(checksBeganMs(sends, "lane-b", SENT_MS - 20, clock.monotonic())).toBe(SENT_MS - 20);
    expect(checksBeganMs(new Map(), "lane-a", SENT_MS - 20, clock.monotonic())).toBe(SENT_MS - 20);
  });

  it("never lowers an estimate already past the send", () => {
    const clock = manualClock();
    const sends: LaneSends = new Map();
    noteLaneSend(sends, "lane-a", SENT_MS, clock);
    expect(checksBeganMs(sends, "lane-a", SENT_MS + 50, clock.monotonic())).toBe(SENT_MS + 50);
  });
});

describe("noteLaneSend()", () => {
  it("keeps the latest send per lane and drops the oldest lanes past its bound", () => {
    const clock = manualClock();
    const sends: LaneSends = new Map();
    for (let i = 0; i < 10_005; i++) noteLaneSend(sends, `lane-${i}`, SENT_MS + i, clock);
    noteLaneSend(sends, "lane-10004", SENT_MS + 99_999, clock);
    expect(sends.size).toBe(10_000);
    expect(sends.has("lane-4")).toBe(false);
    expect(sends.has("lane-5")).toBe(true);
    expect(sends.get("lane-10004")!.sentMs).toBe(SENT_MS + 99_999);
  });
});
