// Loops measured in turn: each named loop runs for a slice, then the next, round after round, until each has run for
// `ms` in all. Loops compared with each other (a verifier against its bare crypto floor) then meet the same machine:
// whatever the database or the OS does in the background falls on all of them alike, never on whichever ran first.

/** How long one loop runs before the next takes its turn. */
export const SLICE_MS = 100;

/**
 * Calls each loop back to back in turns of SLICE_MS until each has run `ms`; returns each one's calls per second over
 * its own running time. A loop throws to fail the run. `now` reads the clock in milliseconds.
 */
export async function loopsInTurn<K extends string>(
  ms: number,
  loops: Record<K, () => unknown>,
  now: () => number = () => performance.now(),
): Promise<Record<K, number>> {
  const names = Object.keys(loops) as K[];
  const calls = Object.fromEntries(names.map((n) => [n, 0])) as Record<K, number>;
  const spent = Object.fromEntries(names.map((n) => [n, 0])) as Record<K, number>;
  while (names.some((n) => spent[n] < ms)) {
    for (const name of names) {
      if (spent[name] >= ms) continue;
      const fn = loops[name];
      const started = now();
      const until = started + Math.min(SLICE_MS, ms - spent[name]);
      let n = 0;
      do {
        await fn();
        n++;
      } while (now() < until);
      spent[name] += now() - started;
      calls[name] += n;
    }
  }
  return Object.fromEntries(names.map((n) => [n, calls[n] / (spent[n] / 1000)])) as Record<K, number>;
}
