import { describe, expect, it } from "vitest";
import { BenchFailure, interleave, runJobs } from "./run-jobs";

const answer =
  (status: number, text = "") =>
  () =>
    Promise.resolve(new Response(text, { status }));

describe("runJobs()", () => {
  it("counts every success once, with its latency", async () => {
    const { perS, latencies } = await runJobs(
      "ok",
      Array.from({ length: 10 }, () => answer(200)),
      3,
    );
    expect(latencies).toHaveLength(10);
    expect(perS).toBeGreaterThan(0);
  });

  it("counts the calls in flight and finished as they go, for the per-second view", async () => {
    const progress = { done: 0, inFlight: 0 };
    const seen: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = () => {
      seen.push(progress.inFlight);
      return gate.then(() => new Response("", { status: 200 }));
    };
    const running = runJobs("progress", [held, held, held, held], 2, progress);
    await new Promise((r) => setImmediate(r));
    expect(progress).toEqual({ done: 0, inFlight: 2 });
    release();
    await running;
    expect(progress).toEqual({ done: 4, inFlight: 0 });
    expect(seen).toEqual([1, 2, 2, 2]);
  });

  it("measures the CPU the calls spent: a job that burns 20 ms of CPU shows at least that per call", async () => {
    // Burns 20 ms of this process's CPU (not of the wall clock, which a loaded machine stretches).
    const burn = () => {
      const from = process.cpuUsage();
      for (;;) {
        const used = process.cpuUsage(from);
        if (used.user + used.system >= 20_000) break;
      }
      return Promise.resolve(new Response("", { status: 200 }));
    };
    const { cpuMsPerCall, cpuCores } = await runJobs("burn", [burn, burn, burn], 1);
    expect(cpuMsPerCall).toBeGreaterThanOrEqual(20);
    expect(cpuMsPerCall).toBeLessThan(200);
    expect(cpuCores).toBeGreaterThan(0);
  });

  it("fails the run on the first failure, naming it, and starts no job after it", async () => {
    let started = 0;
    const jobs = [answer(200), answer(500, "boom"), answer(402, "later"), answer(200)].map((job) => () => {
      started++;
      return job();
    });
    const run = runJobs("paid-c1", jobs, 1);
    await expect(run).rejects.toThrow(BenchFailure);
    await expect(run).rejects.toThrow("paid-c1: first failure: HTTP 500 boom");
    expect(started).toBe(2);
  });

  it("gives worker w the jobs w, w + c, ...: with interleaved agents, one agent's calls never overlap", async () => {
    const perAgent = [0, 1, 2].map((agent) => Array.from({ length: 4 }, (_, i) => ({ agent, i })));
    const inFlight = new Set<number>();
    const order: string[] = [];
    const jobs = interleave(perAgent).map(({ agent, i }) => async () => {
      if (inFlight.has(agent)) throw new Error(`agent ${agent} has two calls in flight`);
      inFlight.add(agent);
      await new Promise((r) => setTimeout(r, 1 + ((agent * 7 + i * 3) % 5)));
      inFlight.delete(agent);
      order.push(`${agent}.${i}`);
      return new Response("", { status: 200 });
    });
    const { latencies } = await runJobs("agents", jobs, 3);
    expect(latencies).toHaveLength(12);
    for (const agent of [0, 1, 2])
      expect(order.filter((o) => o.startsWith(`${agent}.`))).toEqual([0, 1, 2, 3].map((i) => `${agent}.${i}`));
  });

  it("interleave() lays agents out round-robin, shorter lists dropping out", () => {
    expect(interleave([["a0", "a1", "a2"], ["b0"], ["c0", "c1"]])).toEqual(["a0", "b0", "c0", "a1", "c1", "a2"]);
    expect(interleave([])).toEqual([]);
  });

  it("rejects malformed input: a concurrency that is not a positive integer", async () => {
    await expect(runJobs("x", [answer(200)], 0)).rejects.toThrow(RangeError);
    await expect(runJobs("x", [answer(200)], 1.5)).rejects.toThrow(RangeError);
  });
});
