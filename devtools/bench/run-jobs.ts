// The bench's closed-loop runner: `concurrency` workers each run their own share of the jobs, in order, until none is
// left or one fails. Worker w runs jobs w, w + concurrency, w + 2 × concurrency, ...: lay jobs out round-robin by agent
// (`interleave`) and each worker is one agent calling back to back, as a real agent does, never two calls of one agent
// at once. Only successes count toward throughput, and a failure stops the run: a bench with a failed call has no
// figures.

/** A call that did not succeed: the bench stops and reports the first one. */
export class BenchFailure extends Error {
  constructor(phase: string, detail: string) {
    super(`${phase}: ${detail}`);
    this.name = "BenchFailure";
  }
}

/** A run's figures: throughput, latencies, and the CPU this process spent on it. */
export interface JobsRun {
  perS: number;
  /** Each successful call's latency, ms, from the request to its body read. */
  latencies: number[];
  /** This process's CPU time (user + system, every thread) per successful call, ms. */
  cpuMsPerCall: number;
  /** This process's CPU time ÷ the run's wall time: 1 is one core busy throughout. */
  cpuCores: number;
}

/**
 * Runs `jobs` with `concurrency` workers; returns successful calls per second, each one's latency, and the CPU the
 * process spent. Throws BenchFailure naming the first non-200 answer, after the calls in flight end. `progress`, when
 * given, counts the calls finished and in flight as they go (the per-second view reads it).
 */
export async function runJobs(
  phase: string,
  jobs: readonly (() => Promise<Response>)[],
  concurrency: number,
  progress: { done: number; inFlight: number } = { done: 0, inFlight: 0 },
): Promise<JobsRun> {
  if (!(Number.isInteger(concurrency) && concurrency > 0))
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  let failure: string | null = null;
  const latencies: number[] = [];
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; failure === null && i < jobs.length; i += concurrency) {
        const t = performance.now();
        progress.inFlight++;
        const res = await jobs[i]!();
        const text = await res.text();
        progress.inFlight--;
        progress.done++;
        if (res.status !== 200) failure ??= `HTTP ${res.status} ${text.slice(0, 300)}`;
        else latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (failure !== null) throw new BenchFailure(phase, `first failure: ${failure}`);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    perS: latencies.length / seconds,
    latencies,
    cpuMsPerCall: cpuMs / Math.max(1, latencies.length),
    cpuCores: cpuMs / 1000 / seconds,
  };
}

/** Round-robin over the agents' lists: [a0, b0, c0, a1, b1, c1, ...], so that with `runJobs` worker w runs agent w's. */
export function interleave<T>(perAgent: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...perAgent.map((xs) => xs.length));
  for (let i = 0; i < longest; i++) for (const xs of perAgent) if (i < xs.length) out.push(xs[i]!);
  return out;
}
