// Percentiles of the bench's latency samples, by nearest rank: p99 of 1,000 samples is the 990th smallest, not the
// largest. Below 100 samples p99 is the maximum; the bench asks for 1,000 and marks a run with fewer as a trial.

/** The p-th percentile (0 < p ≤ 100) of ascending `sorted`: its smallest sample with at least p % of them at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("percentile of no samples");
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  return sorted[Math.ceil((p * sorted.length) / 100) - 1]!;
}
