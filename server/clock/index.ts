// The clock: the one place production code reads the time from (see Clock). A leaf module every layer may use.

/**
 * Where time comes from. Production code reads time only here (ctx.clock, or a clock passed to a function that has no
 * ctx): leases, takeovers, expiry, deadlines, timestamps written or answered, and durations alike, so a test moves time
 * instead of sleeping. Two readings: `now()` is the wall clock, for a moment that is stored, compared with a stored
 * one or shown; `monotonic()` never goes back, for a duration measured within this process (a latency, a metric, a
 * wait's deadline). A fake clock advances both by the same amount. `Date.now()`, `new Date()` with no argument and
 * `performance.now()` appear only in systemClock (lint refuses them elsewhere, but at the route edge).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Milliseconds from an arbitrary origin that never goes back: only differences between two readings mean anything. */
  monotonic(): number;
  /**
   * Resolves once `ms` have passed on this clock: a retry's pause, a poll's interval. A fake clock resolves it when the
   * test moves it that far. `unref`: the pause alone does not keep the process alive (a background retry).
   */
  sleep(ms: number, opts?: { unref?: boolean }): Promise<void>;
}

/** The wall clock, the process's monotonic clock, and its timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, opts) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      if (opts?.unref) (timer as { unref?: () => void }).unref?.();
    }),
};
