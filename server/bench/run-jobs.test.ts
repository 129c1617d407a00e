import { describe, expect, it } from "vitest";
import { BenchFailure, runJobs } from "./run-jobs";

const answer = (status: number, text = "") => () => Promise.resolve(new Response(text, { status }));

describe("runJobs()", () => {
  it("counts every success once, with its latency", async () => {
    const { perS, latencies } = await runJobs("ok", Array.from({ length: 10 }, () => answer(200)), 3);
    expect(latencies).toHaveLength(10);
    expect(perS).toBeGreaterThan(0);
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

  it("rejects malformed input: a concurrency that is not a positive integer", async () => {
    await expect(runJobs("x", [answer(200)], 0)).rejects.toThrow(RangeError);
    await expect(runJobs("x", [answer(200)], 1.5)).rejects.toThrow(RangeError);
  });
});
