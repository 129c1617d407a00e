// Writes docs/performance.md's generated results table from bench/history.jsonl (`npm run bench:readme`, and the end
// of every `npm run bench`).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readRuns, renderPerformanceTable, replaceBenchBlock } from "./render-performance-table";

/** The doc that holds the table, from the repository root. */
export const PERFORMANCE_DOC = "docs/performance.md";

/** Regenerates the table between the doc's bench markers; returns whether the doc changed. */
export function updatePerformanceDoc(historyPath: string, docPath: string): boolean {
  const runs = existsSync(historyPath) ? readRuns(readFileSync(historyPath, "utf8")) : [];
  const before = readFileSync(docPath, "utf8");
  const after = replaceBenchBlock(before, renderPerformanceTable(runs));
  if (after !== before) writeFileSync(docPath, after);
  return after !== before;
}
