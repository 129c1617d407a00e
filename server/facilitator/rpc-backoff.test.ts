import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./rpc-backoff";

describe("parseRetryAfter()", () => {
  it("reads delta-seconds and HTTP dates as milliseconds", () => {
    const now = Date.parse("2026-11-24T12:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Tue, 24 Nov 2026 12:00:03 GMT", now)).toBe(3_000);
    // A date already past means: now.
    expect(parseRetryAfter("Tue, 24 Nov 2026 11:59:00 GMT", now)).toBe(0);
  });

  it("rejects malformed input as no Retry-After at all", () => {
    for (const bad of [null, undefined, "", "soon", "-1", "1.5", "0x10"])
      expect(parseRetryAfter(bad, Date.parse("2026-11-24T12:00:00Z"))).toBeNull();
  });
});
