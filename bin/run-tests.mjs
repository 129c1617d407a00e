#!/usr/bin/env node
// `npm test`: unit, then integration (PostgreSQL, local chains, HTTP), then a small soak (production instances under the
// fault profile), then the browser suite (Playwright).
// Each runner appends its counts to a summary file; this prints ONE closing line `N passed, N failed, N skipped`
// (the line CI reads) and exits non-zero if any runner failed. The browser suite is never skipped: a missing chromium
// is installed first, or the run stops before any test with one line saying what to install.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureChromiumHere } from "./ensure-chromium.mjs";

const chromium = ensureChromiumHere();
if (!chromium.ok) {
  console.error(chromium.message);
  process.exit(1);
}

const summaryFile = path.join(mkdtempSync(path.join(tmpdir(), "signet-tests-")), "summary.jsonl");
const env = {
  ...process.env,
  SIGNET_SUMMARY_FILE: summaryFile,
  TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
  NEXT_TELEMETRY_DISABLED: "1",
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
};

const steps = [
  // Lint first: it holds the layering (nothing server-only in the browser, nothing Node in server/verify).
  ["lint", ["eslint", "."]],
  ["unit", ["vitest", "run", "--config", "vitest.config.ts"]],
  ["integration", ["vitest", "run", "--config", "vitest.integration.config.ts"]],
  // The soak at a size that fits CI (about 3 minutes on two cores): it counts as one check, passed or failed.
  ["soak", ["tsx", "--conditions=react-server", "bin/soak.ts", "--calls", "300", "--agents", "50", "--seed", "1"]],
  // The specs import server modules, which load under node's react-server condition (the test workers inherit it).
  ["browser (Playwright, Debian chromium)", ["--conditions=react-server", "node_modules/@playwright/test/cli.js", "test"], process.execPath],
];
const E2E_RESULTS = "test-results/e2e-results.json";
rmSync(E2E_RESULTS, { force: true });

let runnerFailed = false;
let lintFailed = null;
let soakFailed = null;
for (const [name, args, command = "npx"] of steps) {
  console.log(`\n=== ${name} tests ===`);
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (name === "lint") lintFailed = result.status !== 0;
  if (name === "soak") soakFailed = result.status !== 0;
  if (result.status !== 0) {
    console.log(`${name} tests exited with ${result.status ?? result.signal}`);
    runnerFailed = true;
  }
}

const totals = { passed: 0, failed: 0, skipped: 0 };
if (existsSync(summaryFile)) {
  for (const line of readFileSync(summaryFile, "utf8").split("\n").filter(Boolean)) {
    const counts = JSON.parse(line);
    for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0;
  }
}
// Playwright's own summary is not read by CI: take its counts from its JSON report.
if (existsSync(E2E_RESULTS)) {
  const stats = JSON.parse(readFileSync(E2E_RESULTS, "utf8")).stats ?? {};
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  totals.failed += stats.unexpected ?? 0;
  totals.skipped += stats.skipped ?? 0;
}
// Lint reports no test counts: it counts as one check, passed or failed.
if (lintFailed !== null) totals[lintFailed ? "failed" : "passed"] += 1;
// Nor does the soak: its invariants are one check.
if (soakFailed !== null) totals[soakFailed ? "failed" : "passed"] += 1;
// A runner that crashed before reporting still fails the run.
if (runnerFailed && totals.failed === 0) totals.failed = 1;
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(runnerFailed || totals.failed > 0 ? 1 : 0);
