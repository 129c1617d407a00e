import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BENCH_BLOCK_END, BENCH_BLOCK_START } from "./render-performance-table";
import { PERFORMANCE_DOC, updatePerformanceDoc } from "./update-performance-doc";

const run = {
  machine: "2 × EPYC",
  database: "PostgreSQL 16.4",
  commit: { sha: "c".repeat(40), dirty: false },
  measured_at: "2026-11-24T10:00:00.000Z",
  trial: false,
  paid_ratio_vs_stock: 0.8,
};

describe("updatePerformanceDoc()", () => {
  it("writes the history's table between the doc's markers, and reports no change the second time", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "perf-doc-"));
    const doc = path.join(dir, "performance.md");
    const history = path.join(dir, "history.jsonl");
    writeFileSync(doc, `# Performance\n\n${BENCH_BLOCK_START}\nold\n${BENCH_BLOCK_END}\n\nafter\n`);
    writeFileSync(history, `${JSON.stringify(run)}\n`);
    expect(updatePerformanceDoc(history, doc)).toBe(true);
    const text = readFileSync(doc, "utf8");
    expect(text).toContain("1 run of commit `cccccccccccc`");
    expect(text).not.toContain("old");
    expect(text.endsWith(`${BENCH_BLOCK_END}\n\nafter\n`)).toBe(true);
    expect(updatePerformanceDoc(history, doc)).toBe(false);
  });

  it("rejects malformed input: a doc without the markers is left as it was", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "perf-doc-"));
    const doc = path.join(dir, "performance.md");
    writeFileSync(doc, "# Performance\n");
    expect(() => updatePerformanceDoc(path.join(dir, "missing.jsonl"), doc)).toThrow("needs one");
    expect(readFileSync(doc, "utf8")).toBe("# Performance\n");
  });

  it("targets the committed performance doc, which has the markers once", () => {
    const text = readFileSync(PERFORMANCE_DOC, "utf8");
    expect(text.split(BENCH_BLOCK_START)).toHaveLength(2);
    expect(text.split(BENCH_BLOCK_END)).toHaveLength(2);
  });
});
