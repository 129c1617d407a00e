// The backoff's waits, on a clock the test moves (vitest's fake timers, which drive Date.now and setTimeout alike) and
// a scripted fetch: a 429's Retry-After holds the retry and every other request of the same gates to the millisecond,
// a Retry-After past the total budget is an outage at once with no wait, and a hung attempt is cut at its time limit.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createBackoffFetch,
  RpcUnavailableError,
  type RpcBackoffOptions,
  type RpcGates,
} from "../facilitator/rpc-backoff";

const URL = "http://rpc.test";
type Answer = { status: number; retryAfter?: string } | "hang";

/** A fetch that answers each request with the next scripted answer (then 200), and records when each arrived. */
function scriptedFetch(script: Answer[]) {
  const sentAt: number[] = [];
  const fetch = (_input: string, init?: RequestInit): Promise<Response> => {
    sentAt.push(Date.now());
    const answer = script.shift() ?? { status: 200 };
    if (answer === "hang") {
      return new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true }),
      );
    }
    const headers = answer.retryAfter ? { "retry-after": answer.retryAfter } : undefined;
    return Promise.resolve(
      new Response(answer.status === 200 ? '{"result":42}' : '{"error":"busy"}', { status: answer.status, headers }),
    );
  };
  return { fetch, sentAt };
}

const OPTS: RpcBackoffOptions = {
  network: "test:timing",
  baseDelayMs: 20,
  capDelayMs: 100,
  attemptTimeoutMs: 500,
  maxAttempts: 4,
  maxTotalMs: 5_000,
};
const T0 = Date.parse("2026-11-28T12:00:00Z");

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createBackoffFetch() on a moved clock", () => {
  it("sends the retry after a 429 exactly when its Retry-After has passed, not a millisecond sooner", async () => {
    const rpc = scriptedFetch([{ status: 429, retryAfter: "1" }]);
    const answer = createBackoffFetch(URL, OPTS, rpc.fetch)(URL, { method: "POST" });
    await vi.advanceTimersByTimeAsync(999);
    expect(rpc.sentAt).toEqual([T0]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await answer).status).toBe(200);
    expect(rpc.sentAt).toEqual([T0, T0 + 1_000]);
  });

  it("holds every other request sharing the gates until Retry-After has passed, first attempts included", async () => {
    const gates: RpcGates = new Map();
    const rpc = scriptedFetch([{ status: 429, retryAfter: "1" }]);
    // Two clients of one URL (the facilitator's and the reconcile's, say) share the gates.
    const first = createBackoffFetch(URL, { ...OPTS, gates }, rpc.fetch);
    const second = createBackoffFetch(URL, { ...OPTS, gates }, rpc.fetch);
    const limited = first(URL, { method: "POST" });
    await vi.advanceTimersByTimeAsync(0);
    expect(gates.get(URL)).toBe(T0 + 1_000);
    await vi.advanceTimersByTimeAsync(300);
    const during = [second(URL, { method: "POST" }), second(URL, { method: "POST" }), first(URL, { method: "POST" })];
    await vi.advanceTimersByTimeAsync(699);
    expect(rpc.sentAt).toEqual([T0]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await limited).status).toBe(200);
    expect((await Promise.all(during)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(rpc.sentAt).toEqual([T0, ...Array(4).fill(T0 + 1_000)]);
  });

  it("gives up at once, waiting for nothing, when Retry-After reaches past the total time budget", async () => {
    const rpc = scriptedFetch([{ status: 429, retryAfter: "5" }]);
    // No timer is moved: an answer here means the backoff never slept.
    const err = await createBackoffFetch(
      URL,
      { ...OPTS, maxTotalMs: 1_000 },
      rpc.fetch,
    )(URL, { method: "POST" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect((err as RpcUnavailableError).reason).toBe("rate_limited");
    expect(Date.now()).toBe(T0);
    expect(rpc.sentAt).toEqual([T0]);
  });

  it("refuses a first attempt at once when the gate closes past the total time budget", async () => {
    const gates: RpcGates = new Map([[URL, T0 + 10_000]]);
    const rpc = scriptedFetch([]);
    const err = await createBackoffFetch(
      URL,
      { ...OPTS, gates, maxTotalMs: 1_000 },
      rpc.fetch,
    )(URL, { method: "POST" }).catch((e: unknown) => e);
    expect((err as RpcUnavailableError).reason).toBe("rate_limited");
    expect(rpc.sentAt).toEqual([]);
  });

  it("cuts a hung attempt at its time limit and retries it", async () => {
    const rpc = scriptedFetch(["hang"]);
    const answer = createBackoffFetch(URL, { ...OPTS, attemptTimeoutMs: 200 }, rpc.fetch)(URL, { method: "POST" });
    await vi.advanceTimersByTimeAsync(199);
    expect(rpc.sentAt).toEqual([T0]);
    // Cut at 200 ms, then sent again after the first retry's backoff (at most baseDelayMs).
    await vi.advanceTimersByTimeAsync(1 + OPTS.baseDelayMs!);
    expect((await answer).status).toBe(200);
    expect(rpc.sentAt).toHaveLength(2);
    expect(rpc.sentAt[1]).toBeGreaterThanOrEqual(T0 + 200);
    expect(rpc.sentAt[1]).toBeLessThanOrEqual(T0 + 200 + OPTS.baseDelayMs!);
  });

  it("never lets an attempt's time limit run past the total budget", async () => {
    const hangs = scriptedFetch(["hang", "hang", "hang", "hang"]);
    const answer = createBackoffFetch(
      URL,
      { ...OPTS, attemptTimeoutMs: 10_000, maxTotalMs: 300 },
      hangs.fetch,
    )(URL, { method: "POST" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(300);
    const err = await answer;
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect((err as RpcUnavailableError).reason).toBe("timeout");
    // One attempt, cut at the budget's end: no time was left for another.
    expect(hangs.sentAt).toEqual([T0]);
    expect(Date.now()).toBe(T0 + 300);
  });
});
