// A memory of answers worth reusing once, briefly: what verify found about a payment's bytes, for the settle that
// follows. An entry is taken at most once, and only within FRESH_MS of being put (by the runtime's clock); past
// MAX_ENTRIES the oldest are dropped (they only cost one more look).
import "server-only";
import type { Clock } from "../clock";

/** How long an answer stands in for the next look at the same thing. */
export const FRESH_MS = 2_000;
/** Entries kept at most. */
const MAX_ENTRIES = 10_000;

export interface UseOnceMemory<V> {
  /** The answer put under `key`, if it is still fresh; the entry is gone either way. */
  take(key: string): V | undefined;
  put(key: string, value: V): void;
  forget(key: string): void;
}

export function useOnceMemory<V>(clock: Clock): UseOnceMemory<V> {
  const entries = new Map<string, { at: number; value: V }>();
  return {
    take(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      return clock.monotonic() - entry.at <= FRESH_MS ? entry.value : undefined;
    },
    put(key, value) {
      const t = clock.monotonic();
      // Insertion order is time order: drop the stale head, and the oldest past MAX_ENTRIES.
      for (const [k, entry] of entries) {
        if (t - entry.at <= FRESH_MS && entries.size < MAX_ENTRIES) break;
        entries.delete(k);
      }
      entries.set(key, { at: t, value });
    },
    forget(key) {
      entries.delete(key);
    },
  };
}
