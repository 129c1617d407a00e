// A clock that stands still until the test moves it: both readings advance together.
import type { Clock } from "../../clock";

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, and wakes every sleep due by then. */
  advance(ms: number): void;
  /** How many sleeps wait for the clock to move: what a test advances past. */
  sleeping(): number;
  /** Resolves when the next sleep begins: the code under test is waiting for the clock to move. */
  nextSleep(): Promise<void>;
}

/** A clock at `startMs` (epoch ms) that moves only when told to. */
export function manualClock(startMs = Date.parse("2026-11-28T12:00:00Z")): ManualClock {
  let nowMs = startMs;
  let elapsed = 0;
  const sleepers: { due: number; wake: () => void }[] = [];
  let asleep: (() => void)[] = [];
  return {
    now: () => nowMs,
    monotonic: () => elapsed,
    sleep: (ms) =>
      new Promise<void>((wake) => {
        if (ms <= 0) return wake();
        sleepers.push({ due: elapsed + ms, wake });
        const waiting = asleep;
        asleep = [];
        for (const notify of waiting) notify();
      }),
    sleeping: () => sleepers.length,
    nextSleep: () => new Promise<void>((notify) => asleep.push(notify)),
    advance: (ms) => {
      if (ms < 0) throw new Error("a clock does not go back");
      nowMs += ms;
      elapsed += ms;
      for (const sleeper of sleepers.filter((s) => s.due <= elapsed)) {
        sleepers.splice(sleepers.indexOf(sleeper), 1);
        sleeper.wake();
      }
    },
  };
}
