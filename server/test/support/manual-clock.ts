// A clock that stands still until the test moves it: both readings advance together.
import type { Clock } from "../../clock";

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
}

/** A clock at `startMs` (epoch ms) that moves only when told to. */
export function manualClock(startMs = Date.parse("2026-11-28T12:00:00Z")): ManualClock {
  let nowMs = startMs;
  let elapsed = 0;
  return {
    now: () => nowMs,
    monotonic: () => elapsed,
    advance: (ms) => {
      if (ms < 0) throw new Error("a clock does not go back");
      nowMs += ms;
      elapsed += ms;
    },
  };
}
