import { describe, expect, it } from "vitest";
import { meanMachineBusy, parseMachineCpu, renderLoadView, type LoadSample } from "./load-view";

describe("parseMachineCpu()", () => {
  it("reads busy and total ms from /proc/stat's cpu line, idle and iowait as not busy", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const stat = "cpu  100 5 45 800 50 0 0 0 0 0\ncpu0 50 2 20 400 25 0 0 0 0 0\nintr 1\n";
    expect(parseMachineCpu(stat)).toEqual({ busyMs: 1500, totalMs: 10000 });
  });

  it("rejects malformed input: no cpu line, too few fields, or a field that is not a count", () => {
    expect(parseMachineCpu("intr 1\n")).toBeNull();
    expect(parseMachineCpu("cpu  1 2 3\n")).toBeNull();
    expect(parseMachineCpu("cpu  1 2 x 4 5 6 7 8\n")).toBeNull();
    expect(parseMachineCpu("cpu  1 2 -3 4 5 6 7 8\n")).toBeNull();
  });
});

const sample = (over: Partial<LoadSample>): LoadSample => ({
  second: 1,
  callsDone: 120,
  callsInFlight: 256,
  machineBusy: 0.5,
  benchCores: 0.8,
  serviceCores: null,
  databaseCores: 0.1,
  otherCores: 0.1,
  verifying: 3,
  settling: 200,
  upstream: 1,
  poolTotal: 10,
  poolIdle: 0,
  poolWaiting: 42,
  rpcInFlight: 7,
  laneWaiting: 0,
  ...over,
});

describe("renderLoadView()", () => {
  it("writes one row per second under one header, every gauge in its column", () => {
    const table = renderLoadView([
      sample({}),
      sample({ second: 2, machineBusy: null, serviceCores: 1.5, databaseCores: null }),
    ]).split("\n");
    expect(table).toHaveLength(4);
    expect(table[0]).toContain("| s | calls | in flight | machine busy |");
    expect(table[2]).toBe("| 1 | 120 | 256 | 50% | 0.80 | – | 0.10 | 0.10 | 3 | 200 | 1 | 10/0 | 42 | 7 | 0 |");
    expect(table[3]).toBe("| 2 | 120 | 256 | – | 0.80 | 1.50 | – | 0.10 | 3 | 200 | 1 | 10/0 | 42 | 7 | 0 |");
  });
});

describe("meanMachineBusy()", () => {
  it("averages the seconds whose machine CPU was read, and is null when none was", () => {
    expect(
      meanMachineBusy([sample({ machineBusy: 0.5 }), sample({ machineBusy: 1 }), sample({ machineBusy: null })]),
    ).toBe(0.75);
    expect(meanMachineBusy([sample({ machineBusy: null })])).toBeNull();
    expect(meanMachineBusy([])).toBeNull();
  });
});
