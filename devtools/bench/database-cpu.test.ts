import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseProcStat, readDatabaseCpuMs } from "./database-cpu";

const statLine = (pid: number, comm: string, utime: number, stime: number) =>
  `${pid} (${comm}) S 1 ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 100 1000 10 18446744073709551615`;

describe("parseProcStat()", () => {
  it("reads the command name and the CPU ticks, even when the name holds spaces and parentheses", () => {
    expect(parseProcStat(statLine(7, "postgres", 12, 3))).toEqual({ comm: "postgres", utime: 12, stime: 3 });
    expect(parseProcStat(statLine(8, "a (b) c", 5, 6))).toEqual({ comm: "a (b) c", utime: 5, stime: 6 });
  });

  it("rejects malformed input", () => {
    expect(parseProcStat("")).toBeNull();
    expect(parseProcStat("12 postgres S 1")).toBeNull();
    expect(parseProcStat("12 (postgres) S 1 2 3")).toBeNull();
  });
});

describe("readDatabaseCpuMs()", () => {
  it("sums the postgres processes' user and system time, in ms, and nothing else", () => {
    const proc = mkdtempSync(path.join(tmpdir(), "proc-"));
    const put = (pid: number, comm: string, utime: number, stime: number) => {
      mkdirSync(path.join(proc, String(pid)));
      writeFileSync(path.join(proc, String(pid), "stat"), statLine(pid, comm, utime, stime));
    };
    put(10, "postgres", 100, 50);
    put(11, "postgres", 7, 3);
    put(12, "node", 999, 999);
    mkdirSync(path.join(proc, "self"));
    expect(readDatabaseCpuMs(proc)).toBe(((100 + 50 + 7 + 3) * 1000) / 100);
  });

  it("answers null when no postgres process is visible", () => {
    const proc = mkdtempSync(path.join(tmpdir(), "proc-"));
    expect(readDatabaseCpuMs(proc)).toBeNull();
    expect(readDatabaseCpuMs(path.join(proc, "missing"))).toBeNull();
  });
});
