// The bench's closed-loop runner: `concurrency` workers take jobs until none is left or one fails. Only successes
// count toward throughput, and a failure stops the run: a bench with a failed call has no figures.

/** A call that did not succeed: the bench stops and reports the first one. */
export class BenchFailure extends Error {
  constructor(phase: string, detail: string) {
    super(`${phase}: ${detail}`);
    this.name = "BenchFailure";
  }
}

/**
 * Runs `jobs` with `concurrency` workers; returns successful calls per second and each one's latency in ms, from the
 * request to its body read. Throws BenchFailure naming the first non-200 answer, after the calls in flight end.
 */
export async function runJobs(phase: string, jobs: readonly (() => Promise<Response>)[], concurrency: number): Promise<{ perS: number; latencies: number[] }> {
  if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  let next = 0;
  let failure: string | null = null;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (failure === null && next < jobs.length) {
        const t = performance.now();
        const res = await jobs[next++]!();
        const text = await res.text();
        if (res.status !== 200) failure ??= `HTTP ${res.status} ${text.slice(0, 300)}`;
        else latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (failure !== null) throw new BenchFailure(phase, `first failure: ${failure}`);
  return { perS: latencies.length / seconds, latencies };
}
