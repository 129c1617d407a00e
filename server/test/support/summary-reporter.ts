// Prints the plain closing line CI reads (`N passed, N failed, N skipped`) and, when SIGNET_SUMMARY_FILE is set,
// writes the counts there so bin/run-tests.mjs can add up several runners into one line.
import { appendFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (mod.state() === "failed" && [...mod.children.allTests()].length === 0) failed++;
    }
    failed += unhandledErrors.length;
    const line = `${passed} passed, ${failed} failed, ${skipped} skipped`;
    console.log(`\n${line}`);
    const file = process.env.SIGNET_SUMMARY_FILE;
    if (file) appendFileSync(file, JSON.stringify({ passed, failed, skipped }) + "\n");
  }
}
