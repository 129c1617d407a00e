import { describe, expect, it } from "vitest";
import {
  BENCH_BLOCK_END,
  BENCH_BLOCK_START,
  latestCommitRuns,
  readRuns,
  renderPerformanceTable,
  replaceBenchBlock,
  type BenchRun,
} from "./render-performance-table";

const run = (sha: string, over: Partial<BenchRun> & Record<string, unknown> = {}): BenchRun => ({
  machine: "2 × EPYC",
  database: "PostgreSQL 16.4",
  commit: { sha, dirty: false },
  measured_at: "2026-11-24T10:00:00.000Z",
  trial: false,
  service_cpu_ratio_vs_stock: 0.8,
  overhead_p50_vs_commit_bound: 1.3,
  prepaid_calls_per_s: 400,
  load_average_1m: { before: 0.5, after: 1.75 },
  ...over,
});
const lines = (...runs: BenchRun[]) => runs.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("renderPerformanceTable()", () => {
  it("shows each full run of the latest commit in its own column, with each goal's verdict per run and in all", () => {
    const history = readRuns(
      lines(
        run("a".repeat(40), { service_cpu_ratio_vs_stock: 9 }),
        run("b".repeat(40), { service_cpu_ratio_vs_stock: 0.9 }),
        run("b".repeat(40), {
          service_cpu_ratio_vs_stock: 1.1,
          overhead_p50_vs_commit_bound: 0.7,
          load_average_1m: { before: 1, after: 2.5 },
        }),
        run("b".repeat(40), { service_cpu_ratio_vs_stock: 50, trial: true }),
      ),
    );
    const table = renderPerformanceTable(history);
    expect(table).toContain("2 runs of commit `bbbbbbbbbbbb`");
    expect(table).toContain("| goal | target | run 1 | run 2 | met |");
    expect(table).toMatch(/\| service CPU per paid call[^|]*\| ≤ 1 \| 0\.9 ✓ \| 1\.1 ✗ \| 1 of 2 \|/);
    expect(table).toMatch(/\| server overhead per paid call, p50[^|]*\| ≤ 1 \| 1\.3 ✗ \| 0\.7 ✓ \| 1 of 2 \|/);
    expect(table).toMatch(/\| load average \(1 min\), before → after the run \| 0\.5 → 1\.75 \| 1 → 2\.5 \|/);
    expect(table).toMatch(/\| prepaid calls\/s, c=16 \(PostgreSQL\) \| 400 \| 400 \|/);
    expect(table).not.toContain("50 ✗");
    expect(table).not.toContain("| 9 ✗");
  });

  it("marks a goal met in every run as such, and one never measured with a dash", () => {
    const table = renderPerformanceTable([run("c".repeat(40), { service_cpu_ratio_vs_stock: 0.5 })]);
    expect(table).toMatch(/\| service CPU per paid call[^|]*\| ≤ 1 \| 0\.5 ✓ \| 1 of 1 \|/);
    expect(table).toMatch(/\| hosted verifier[^|]*\| ≥ 0\.15 \| – \| not measured \|/);
  });

  it("keeps runs with uncommitted changes apart from the clean runs of the same commit", () => {
    const sha = "d".repeat(40);
    const shown = latestCommitRuns([run(sha), run(sha, { commit: { sha, dirty: true } })]);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.commit.dirty).toBe(true);
  });

  it("says so when the history holds only trial runs", () => {
    expect(renderPerformanceTable([run("e".repeat(40), { trial: true })])).toMatch(/^No full run/);
  });
});

describe("readRuns()", () => {
  it("rejects malformed input: a line that is not JSON, or not a run, named by its number", () => {
    expect(() => readRuns(`${JSON.stringify(run("f".repeat(40)))}\n{oops\n`)).toThrow("line 2 is not JSON");
    expect(() => readRuns(`{"commit":{"sha":"x"}}\n`)).toThrow("line 1 is not a bench run");
    expect(readRuns("\n\n")).toEqual([]);
  });
});

describe("replaceBenchBlock()", () => {
  const doc = `# Performance\n\nprose\n\n${BENCH_BLOCK_START}\nold table\n${BENCH_BLOCK_END}\n\nafter\n`;

  it("replaces only the text between the markers, and is stable when run twice", () => {
    const once = replaceBenchBlock(doc, "| new |");
    expect(once).toContain("prose\n\n<!-- bench:start -->\n");
    expect(once).toContain("| new |\n\n<!-- bench:end -->\n\nafter\n");
    expect(once).not.toContain("old table");
    expect(replaceBenchBlock(once, "| new |")).toBe(once);
  });

  it("rejects malformed input: a doc without both markers, or with them out of order or twice", () => {
    expect(() => replaceBenchBlock("# no markers", "x")).toThrow("needs one");
    expect(() => replaceBenchBlock(`${BENCH_BLOCK_END}\n${BENCH_BLOCK_START}`, "x")).toThrow("needs one");
    expect(() => replaceBenchBlock(`${doc}${BENCH_BLOCK_START}`, "x")).toThrow("needs one");
  });
});
