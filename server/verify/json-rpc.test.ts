// The verifier's bounded fetch on a clock the test moves (vitest's fake timers): a hung RPC is cut at each attempt's
// limit, retried once after the pause, and reported as rpc_timeout exactly when its bound has run, never later.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fetchJsonBounded, jsonRpcCall, VerifierFetchError, type FetchLike } from "./json-rpc";

/** A fetch that never answers (until aborted), recording when each attempt was sent. */
function hangingFetch(): { fetch: FetchLike; sentAt: number[] } {
  const sentAt: number[] = [];
  const fetch: FetchLike = (_url, init) => {
    sentAt.push(Date.now());
    return new Promise((_resolve, reject) =>
      init?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
    );
  };
  return { fetch, sentAt };
}

const T0 = Date.parse("2026-11-28T12:00:00Z");
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("fetchJsonBounded() against an RPC that hangs", () => {
  it("fails rpc_timeout after two attempts of 2.5 s and the 200 ms pause: 5.2 s, not a millisecond more", async () => {
    const rpc = hangingFetch();
    let settled: unknown = null;
    const call = jsonRpcCall("http://rpc.test", "getTransaction", [], { fetch: rpc.fetch }).catch(
      (e: unknown) => (settled = e),
    );
    await vi.advanceTimersByTimeAsync(5_199);
    expect(settled).toBeNull();
    expect(rpc.sentAt).toEqual([T0, T0 + 2_700]);
    await vi.advanceTimersByTimeAsync(1);
    await call;
    expect(settled).toBeInstanceOf(VerifierFetchError);
    expect((settled as VerifierFetchError).reason).toBe("rpc_timeout");
    expect((settled as VerifierFetchError).message).toBe("http://rpc.test timed out after 2500 ms");
  });

  it("keeps a caller's own limits and its failure reason for what is not a chain RPC", async () => {
    const rpc = hangingFetch();
    let settled: unknown = null;
    const call = fetchJsonBounded(
      "http://key.test",
      {},
      { fetch: rpc.fetch, attemptTimeoutMs: 100, retries: 0 },
      "operator_key_unavailable",
    ).catch((e: unknown) => (settled = e));
    await vi.advanceTimersByTimeAsync(99);
    expect(settled).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    await call;
    expect((settled as VerifierFetchError).reason).toBe("operator_key_unavailable");
    expect(rpc.sentAt).toEqual([T0]);
  });
});
