// Writes the README's generated Performance table from bench/history.jsonl (`npm run bench:readme`, and the end of
// every `npm run bench`).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readRuns, renderPerformanceTable, replaceBenchBlock } from "./render-performance-table";

/** Regenerates the table between the README's bench markers; returns whether the README changed. */
export function updateReadmeFromHistory(historyPath: string, readmePath: string): boolean {
  const runs = existsSync(historyPath) ? readRuns(readFileSync(historyPath, "utf8")) : [];
  const before = readFileSync(readmePath, "utf8");
  const after = replaceBenchBlock(before, renderPerformanceTable(runs));
  if (after !== before) writeFileSync(readmePath, after);
  return after !== before;
}
