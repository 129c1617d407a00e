import { describe, expect, it } from "vitest";
import { formatUnitsAsUsdc, parseUsdcToUnits, unitsToUsdcNumber, usdcNumberToUnits } from "./amounts";

describe("usdcNumberToUnits()", () => {
  it.each([
    [0.01, 10_000n],
    [0.001, 1_000n],
    [0.000045, 45n],
    [1e-6, 1n],
    [0.1 + 0.2, null], // 0.30000000000000004 is not a whole number of units
    [5, 5_000_000n],
    [0, 0n],
  ])("converts %d to %s units without float error", (value, units) => {
    expect(usdcNumberToUnits(value)).toBe(units);
  });

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY], [1e-7], ["0.01"], [null]])("rejects %j", (value) => {
    expect(usdcNumberToUnits(value)).toBeNull();
  });
});

describe("parseUsdcToUnits()", () => {
  it("reads plain decimals and exponent forms", () => {
    expect(parseUsdcToUnits("1.5")).toBe(1_500_000n);
    expect(parseUsdcToUnits("1e-6")).toBe(1n);
    expect(parseUsdcToUnits("2E+1")).toBe(20_000_000n);
    expect(parseUsdcToUnits("0.0000010")).toBe(1n);
  });

  it.each(["", "abc", "-1", "1.", ".5", "1e-7", "1e999", "0x10", " 1 2"])("rejects %j", (text) => {
    expect(parseUsdcToUnits(text)).toBeNull();
  });
});

describe("formatUnitsAsUsdc() / unitsToUsdcNumber()", () => {
  it("round-trips units through the receipt's number", () => {
    for (const units of [0n, 1n, 45n, 1_000n, 10_000n, 123_456_789n]) {
      expect(usdcNumberToUnits(unitsToUsdcNumber(units))).toBe(units);
    }
    expect(formatUnitsAsUsdc(1_000n)).toBe("0.001");
    expect(formatUnitsAsUsdc(-2_500_000n)).toBe("-2.5");
  });
});
