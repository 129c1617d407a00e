#!/usr/bin/env node
// `npm test`, in three lanes side by side: the integration files that share nothing (PostgreSQL, local chains, HTTP);
// the one production build, then the browser suite (Playwright) and the integration files that serve the build (the
// graceful shutdown, the production install, and the soak: the multi-instance test's production instances under the
// fault profile); the integration files that measure time, one at a time, beside the unit tests, then the type check
// and lint (and the unit tests on the machine's Node 22, where CI runs the suite on Node 24). Each runner
// appends its counts to a summary file; this prints the slowest files and each stage's wall time, then ONE closing
// line `N passed, N failed, N skipped` (the line CI reads, always the last) and exits non-zero if any runner failed.
// The browser suite is never skipped: a missing chromium is installed first, or the run stops before any test with
// one line saying what to install.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureChromiumHere } from "./ensure-chromium.mjs";

/** How many of the slowest test files the closing summary lists. */
const SLOWEST_FILES = 15;
/** The build the soak (the multi-instance test) and the browser suite share: a folder tsconfig already excludes. */
const SHARED_BUILD_DIR = ".next-e2e";

const chromium = ensureChromiumHere();
if (!chromium.ok) {
  console.error(chromium.message);
  process.exit(1);
}

const summaryFile = path.join(mkdtempSync(path.join(tmpdir(), "signet-tests-")), "summary.jsonl");
const env = {
  ...process.env,
  SIGNET_SUMMARY_FILE: summaryFile,
  SIGNET_SHARED_BUILD_DIR: SHARED_BUILD_DIR,
  TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
  NEXT_TELEMETRY_DISABLED: "1",
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
  // Every Node process of the run (test workers, the CLI runs, the chaos and soak servers, the build) keeps the code it
  // compiled in one cache, and the next process that loads the same module skips compiling it. Hundreds of processes
  // load the same packages; the cache is the run's own, so nothing carries over between runs.
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? mkdtempSync(path.join(tmpdir(), "signet-compile-cache-")),
};
const ownCompileCache = process.env.NODE_COMPILE_CACHE ? null : env.NODE_COMPILE_CACHE;
const E2E_RESULTS = "test-results/e2e-results.json";
rmSync(E2E_RESULTS, { force: true });

/**
 * Every test file's stage, wall time and CPU time, slowest first, beside the Playwright report (the summary lists only
 * the slowest).
 */
const FILE_TIMES = "test-results/file-times.txt";
/** Measures a stage's CPU time (its processes' and their children's), where the machine has GNU time. */
const GNU_TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const timesDir = mkdtempSync(path.join(tmpdir(), "signet-stage-cpu-"));

/** Each stage's result: exit status, wall time and CPU time. */
const stages = [];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const runStarted = Date.now();

/**
 * Runs a stage beside others: a line when it starts, and its output, kept, printed in one piece when it ends, so
 * logs stay readable. Never spawnSync: the event loop must keep reading every stage's output, or one stalls on a full
 * pipe. `niceness` lowers the stage's CPU priority (and its children's): see the lanes below.
 */
function runStage(name, command, args, { niceness = 0 } = {}) {
  const started = Date.now();
  console.log(`--- ${name}: started at +${seconds(started - runStarted)}${niceness ? ` (nice ${niceness})` : ""}`);
  if (niceness > 0) [command, args] = ["nice", ["-n", String(niceness), command, ...args]];
  const cpuFile = path.join(timesDir, `${stages.length}-${name.replace(/[^a-z]+/gi, "-")}.txt`);
  if (GNU_TIME) [command, args] = [GNU_TIME, ["-q", "-f", "%U %S", "-o", cpuFile, command, ...args]];
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...env, SIGNET_SUMMARY_STAGE: name, FORCE_COLOR: "0" },
    });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr.on("data", (c) => chunks.push(c));
    child.on("close", (code, signal) => {
      const stage = {
        name,
        ok: code === 0,
        status: code ?? signal,
        startedMs: started - runStarted,
        ms: Date.now() - started,
        cpuMs: stageCpuMs(cpuFile),
      };
      console.log(
        `\n=== ${name} (${seconds(stage.ms)}, ended at +${seconds(Date.now() - runStarted)}) ===\n${Buffer.concat(chunks).toString("utf8").trimEnd()}`,
      );
      stages.push(stage);
      resolve(stage);
    });
  });
}

/** The user plus system CPU time GNU time wrote for a stage, or null where it wrote none. */
function stageCpuMs(file) {
  if (!existsSync(file)) return null;
  const [user, system] = readFileSync(file, "utf8").trim().split("\n").at(-1).split(" ").map(Number);
  return Number.isFinite(user) && Number.isFinite(system) ? (user + system) * 1000 : null;
}

/** A stage that could not run because one it needs failed: a failure of its own, with the reason. */
function notRun(name, reason) {
  console.log(`\n=== ${name}: not run, ${reason} ===`);
  const stage = { name, ok: false, notRun: reason, startedMs: Date.now() - runStarted, ms: 0 };
  stages.push(stage);
  return stage;
}

// Two cores, three lanes side by side. The timing files and the soak mostly wait on chains, sockets and PostgreSQL
// (the CPU is over 80% idle while they run alone), so they run beside the CPU-bound work instead of after it. CPU
// priority keeps what measures time honest: the timing files, the build, the browser suite and the soak run at
// niceness 0; the unit tests and the side-by-side integration files, which only need throughput, at 10, so they get
// what the others leave (about a tenth of a core when both compete). The type check and lint measure nothing at all
// and run at 15, below the side-by-side files: those end the run, and the checks take the CPU their waits leave.
const THROUGHPUT_NICENESS = 10;
const CHECKS_NICENESS = 15;
const integration = ["vitest", "run", "--config", "vitest.integration.config.ts"];

// Lane 1, throughput: the integration files that share nothing, two side by side, from the start. Theirs is the most
// work of any stage, so they begin at once; the unit tests, the type check and lint fill the timing lane instead.
const throughputLane = runStage(
  "integration (side by side)",
  "npx",
  [...integration, "--project", "parallel", "--project", "isolated"],
  { niceness: THROUGHPUT_NICENESS },
);

// Lane 2: the one production build, then, side by side, the browser suite against it and the integration files that
// serve it (`npm start`): the graceful shutdown and the soak (the multi-instance test). The specs import server
// modules, which load under node's react-server condition (the test workers inherit it).
const build = runStage("build", "npx", ["tsx", "--conditions=react-server", "devtools/soak/prebuild.ts"]);
const builtLane = (async () => {
  if (!(await build).ok) {
    notRun("browser (Playwright, Debian chromium)", "the build failed");
    return notRun("integration (production build)", "the build failed");
  }
  await Promise.all([
    runStage("browser (Playwright, Debian chromium)", process.execPath, [
      "--conditions=react-server",
      "node_modules/@playwright/test/cli.js",
      "test",
    ]),
    runStage("integration (production build)", "npx", [...integration, "--project", "production"]),
  ]);
})();

// Lane 3, timing: the files that measure time, one at a time, and beside them, at the throughput lane's priority, the
// unit tests (the timing files mostly wait, so the unit tests take the CPU they leave); then, at the checks' priority,
// the type check and lint (eslint with type information, knip: the layer map, the browser/server split and no dead
// exports, and Prettier's check); and, where CI runs the suite on Node 24 and the machine has Node 22
// (SIGNET_MACHINE_NODE names the machine's node), the unit tests once more on the machine's Node.
const machineNode = process.env.SIGNET_MACHINE_NODE;
const timingLane = (async () => {
  await Promise.all([
    runStage("integration (timing)", "npx", [...integration, "--project", "timing"]),
    runStage("unit", "npx", ["vitest", "run", "--config", "vitest.config.ts"], { niceness: THROUGHPUT_NICENESS }),
  ]);
  // The type check runs on TypeScript 7's native compiler (the `typescript-native` alias: a third of TypeScript 5's
  // CPU time). ESLint's type-aware rules and Next's build keep TypeScript 5, whose JavaScript API they need.
  await runStage("typecheck", "npm", ["run", "-s", "typecheck"], { niceness: CHECKS_NICENESS });
  await runStage("lint", "npm", ["run", "-s", "lint"], { niceness: CHECKS_NICENESS });
  if (machineNode) {
    const version = await nodeVersion(machineNode);
    await runStage(
      `unit (the machine's Node ${version})`,
      machineNode,
      ["node_modules/vitest/vitest.mjs", "run", "--config", "vitest.config.ts"],
      { niceness: THROUGHPUT_NICENESS },
    );
  }
})();

/** `node --version` of the node at `file`, or "?" when it cannot say. */
function nodeVersion(file) {
  return new Promise((resolve) => {
    const child = spawn(file, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", () => resolve("?"));
    child.on("close", () => resolve(out.trim() || "?"));
  });
}

await Promise.all([throughputLane, builtLane, timingLane]);

const totals = { passed: 0, failed: 0, skipped: 0 };
/** [stage, file, ms, CPU ms or null] of every test file of the run. */
const files = [];
/** [stage, file, test, first line of the error] of every failed test, listed above the closing line. */
const failures = [];
if (existsSync(summaryFile)) {
  for (const line of readFileSync(summaryFile, "utf8").split("\n").filter(Boolean)) {
    const record = JSON.parse(line);
    for (const key of Object.keys(totals)) totals[key] += record[key] ?? 0;
    for (const [file, ms, , cpuMs] of record.files ?? []) files.push([record.stage ?? "?", file, ms, cpuMs ?? null]);
    for (const [file, name, error] of record.failures ?? []) failures.push([record.stage ?? "?", file, name, error]);
  }
}
// Playwright's own summary is not read by CI: take its counts, and each spec file's time, from its JSON report.
if (existsSync(E2E_RESULTS)) {
  const report = JSON.parse(readFileSync(E2E_RESULTS, "utf8"));
  const stats = report.stats ?? {};
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  totals.failed += stats.unexpected ?? 0;
  totals.skipped += stats.skipped ?? 0;
  const specMs = (suite) =>
    (suite.specs ?? []).reduce(
      (sum, spec) =>
        sum + spec.tests.reduce((t, test) => t + test.results.reduce((r, res) => r + (res.duration ?? 0), 0), 0),
      0,
    ) + (suite.suites ?? []).reduce((sum, inner) => sum + specMs(inner), 0);
  for (const suite of report.suites ?? []) files.push(["browser", path.join("e2e", suite.file), specMs(suite), null]);
  const failedSpecs = (suite, titles) =>
    (suite.specs ?? [])
      .filter((spec) => !spec.ok)
      .map((spec) => [
        "browser",
        path.join("e2e", spec.file),
        [...titles, spec.title].join(" > "),
        spec.tests.flatMap((t) => t.results.map((r) => r.error?.message ?? "")).find(Boolean) ?? "",
      ])
      .concat((suite.suites ?? []).flatMap((inner) => failedSpecs(inner, [...titles, inner.title])));
  for (const suite of report.suites ?? []) failures.push(...failedSpecs(suite, []));
}
// Lint, the type check and the build report no test counts: each counts as one check, passed or failed.
for (const stage of stages)
  if (["lint", "typecheck", "build"].includes(stage.name)) totals[stage.ok ? "passed" : "failed"] += 1;
const runnerFailed = stages.some((s) => !s.ok);
for (const stage of stages)
  if (!stage.ok)
    console.log(`${stage.name}: ${stage.notRun ? `not run (${stage.notRun})` : `exited with ${stage.status}`}`);
// A runner that crashed before reporting still fails the run.
if (runnerFailed && totals.failed === 0) totals.failed = 1;

files.sort((a, b) => b[2] - a[2]);
mkdirSync(path.dirname(FILE_TIMES), { recursive: true });
/** A file's CPU time (its worker's and its child processes'), blank where it was not measured (the browser specs). */
const cpuColumn = (cpuMs) => (cpuMs == null ? "" : `cpu ${seconds(cpuMs)}`).padEnd(12);
writeFileSync(
  FILE_TIMES,
  files
    .map(([stage, file, ms, cpuMs]) => `${seconds(ms).padStart(8)}  ${cpuColumn(cpuMs)}  ${stage}  ${file}\n`)
    .join(""),
);
console.log(`\nslowest ${Math.min(SLOWEST_FILES, files.length)} test files (wall time, CPU time):`);
for (const [stage, file, ms, cpuMs] of files.slice(0, SLOWEST_FILES))
  console.log(`  ${seconds(ms).padStart(8)}  ${cpuColumn(cpuMs)} ${stage.padEnd(12)} ${file}`);
console.log(`(every file's time: ${FILE_TIMES})`);
console.log("stages (wall time, CPU time, and when each started; three lanes side by side):");
for (const stage of stages.sort((a, b) => a.startedMs - b.startedMs)) {
  const cpu = stage.cpuMs == null ? "" : `cpu ${seconds(stage.cpuMs)}`;
  console.log(
    `  ${seconds(stage.ms).padStart(8)}  ${cpu.padEnd(12)} from +${seconds(stage.startedMs).padEnd(8)} ${stage.name}${stage.ok ? "" : " (failed)"}`,
  );
}
console.log(
  `  ${seconds(Date.now() - runStarted).padStart(8)}  ${`cpu ${seconds(stages.reduce((sum, s) => sum + (s.cpuMs ?? 0), 0))}`.padEnd(12)} in all`,
);
if (failures.length > 0) {
  console.log(`\nfailed tests (${failures.length}):`);
  // Listed last, just above the closing line, where a log's tail shows them. Colour codes and a long message's tail
  // would bury the name: the first line, plain, is enough to find it above.
  const plain = (text) =>
    String(text)
      .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
      .split("\n")[0]
      .slice(0, 240);
  for (const [stage, file, name, error] of failures)
    console.log(`  ${stage}: ${file} > ${plain(name)}\n      ${plain(error)}`);
}

console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
if (ownCompileCache) rmSync(ownCompileCache, { recursive: true, force: true });
process.exit(runnerFailed || totals.failed > 0 ? 1 : 0);
