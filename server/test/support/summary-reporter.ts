// Prints the plain closing line CI reads (`N passed, N failed, N skipped`) and, when SIGNET_SUMMARY_FILE is set,
// writes the counts and each file's duration and CPU time there so bin/test/run-tests.mjs can add up several runners
// into one line and list the slowest files of the whole run.
import { appendFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { devtoolsSetting } from "../../../devtools/devtools-env";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const files: [file: string, ms: number, tests: number, cpuMs: number | null][] = [];
    /** Each failure's file, test name and the first line of its error, for the run's closing list. */
    const failures: [file: string, name: string, error: string][] = [];
    for (const mod of testModules) {
      const tests = [...mod.children.allTests()];
      for (const test of tests) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") {
          failed++;
          failures.push([
            path.relative(process.cwd(), mod.moduleId),
            test.fullName,
            thrownAt(test.result().errors?.[0]) + firstLine(test.result().errors?.[0]?.message),
          ]);
        } else skipped++;
      }
      // A file that failed outside its tests (its import, a beforeAll) leaves them skipped: the file itself is a failure.
      if (mod.state() === "failed" && !tests.some((t) => t.result().state === "failed")) {
        failed++;
        failures.push([
          path.relative(process.cwd(), mod.moduleId),
          "(the file itself)",
          thrownAt(mod.errors()[0]) + firstLine(mod.errors()[0]?.message),
        ]);
      }
      // The file's own time: importing it and running its hooks and tests (what the default reporter prints beside it).
      const d = mod.diagnostic();
      files.push([
        path.relative(process.cwd(), mod.moduleId),
        Math.round(d.collectDuration + d.duration),
        tests.length,
        mod.meta().cpuMs ?? null,
      ]);
    }
    failed += unhandledErrors.length;
    for (const error of unhandledErrors)
      failures.push(["(unhandled)", "", firstLine((error as { message?: string })?.message)]);
    const line = `${passed} passed, ${failed} failed, ${skipped} skipped`;
    console.log(`\n${line}`);
    const file = devtoolsSetting("SIGNET_SUMMARY_FILE");
    if (file)
      appendFileSync(
        file,
        JSON.stringify({ stage: devtoolsSetting("SIGNET_SUMMARY_STAGE"), passed, failed, skipped, files, failures }) +
          "\n",
      );
  }
}

/**
 * Where an error was thrown, as `at file:line: `: its first stack frame in the repository outside node_modules, so a
 * failure read from a log's tail names the assertion that failed (first, before a long message is cut). Empty when the
 * error has no such frame.
 */
function thrownAt(error: { stacks?: { file: string; line: number }[] } | undefined): string {
  const frame = error?.stacks?.find((f) => f.file.startsWith(process.cwd()) && !f.file.includes("/node_modules/"));
  return frame ? `at ${path.relative(process.cwd(), frame.file)}:${frame.line}: ` : "";
}

function firstLine(message: string | undefined): string {
  return (message ?? "").split("\n")[0]!.slice(0, 300);
}
