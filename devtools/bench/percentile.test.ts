import { describe, expect, it } from "vitest";
import { percentile } from "./percentile";

const ascending = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("percentile()", () => {
  it("takes p99 of 1,000 samples as the 990th smallest, not the maximum", () => {
    expect(percentile(ascending(1000), 99)).toBe(990);
    expect(percentile(ascending(1000), 50)).toBe(500);
  });

  it("gives the maximum for p99 of fewer than 100 samples (one sample above it from 100 on)", () => {
    expect(percentile(ascending(99), 99)).toBe(99);
    expect(percentile(ascending(100), 99)).toBe(99);
    expect(percentile(ascending(100), 100)).toBe(100);
  });

  it("takes the single sample of a one-sample set at every percentile", () => {
    expect(percentile([7], 1)).toBe(7);
    expect(percentile([7], 100)).toBe(7);
  });

  it("rejects malformed input: no samples, or a percentile outside (0, 100]", () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});
