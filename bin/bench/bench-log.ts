// `npm run bench:log`: what the receipt log adds to a served call (devtools/bench/measure-log-append.ts), on a fresh
// PostgreSQL database (TEST_DATABASE_URL's server, else the local default), with dev keys in a temporary data dir.
// Prints the figures; writes nothing else. Sizes: BENCH_LOG_CONCURRENCY (16, the prepaid bench's), BENCH_LOG_ROUNDS
// (7: the first warms up), BENCH_LOG_CALLS (60 per lane per round).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { devtoolsKnob, devtoolsSetting, loadDevtoolsEnv } from "../../devtools/devtools-env";

const { openPostgres } = await import("../../server/db");
const { loadConfig } = await import("../../server/env");
const { createServiceKeys } = await import("../../server/keys/service-keys");
const { measureAppendStatements, measureLogAppend } = await import("../../devtools/bench/measure-log-append");

// Dev keys in a temporary data dir (or SIGNET_DATA_DIR's), as a test would have them.
const config = loadConfig({
  NODE_ENV: "test",
  SIGNET_DATA_DIR: devtoolsSetting("SIGNET_DATA_DIR") ?? mkdtempSync(path.join(tmpdir(), "signet-bench-log-")),
});
const identity = createServiceKeys(config).log();
const admin = loadDevtoolsEnv().TEST_DATABASE_URL;
/** A size knob: a whole number from 1 (rounds: 2, the first only warms up), or the run stops before anything starts. */
function knob(name: string, fallback: number, min = 1): number {
  const value = devtoolsKnob(name, fallback);
  if (!Number.isInteger(value) || value < min || value > 10_000) {
    process.stderr.write(`signet: ${name} must be a whole number from ${min} to 10000\n`);
    process.exit(2);
  }
  return value;
}
const concurrency = knob("BENCH_LOG_CONCURRENCY", 16);
const rounds = knob("BENCH_LOG_ROUNDS", 7, 2);
const calls = knob("BENCH_LOG_CALLS", 60);
const name = `signet_bench_log_${Date.now()}`;
const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`CREATE DATABASE "${name}"`);
const url = new URL(admin);
url.pathname = `/${name}`;
const open = await openPostgres(url.toString(), concurrency + 4);
try {
  const end = await measureLogAppend(open.prisma, identity, concurrency, rounds, calls);
  const fmt = (f: { p50Ms: number; p90Ms: number; calls: number }) =>
    `p50 ${f.p50Ms.toFixed(3)} ms, p90 ${f.p90Ms.toFixed(3)} ms (${f.calls} calls)`;
  console.log(`a call's end at concurrency ${end.concurrency}, interleaved rounds:`);
  console.log(`  unlogged (capture; sign; store receipt):                ${fmt(end.unlogged)}`);
  console.log(`  logged   (capture; sign; store receipt + stage entry):  ${fmt(end.logged)}`);
  console.log(
    `  logging adds ${end.addedP50Ms.toFixed(3)} ms at p50 (${end.checkpoints} checkpoints signed meanwhile)`,
  );
  for (const c of [1, 8]) {
    const s = await measureAppendStatements(url.toString(), c, 300);
    console.log(
      `numbering in the appending statement, concurrency ${c}: staging insert p50 ${s.staging.p50Ms.toFixed(3)} ms (${s.staging.perS.toFixed(0)}/s); counter row p50 ${s.counter.p50Ms.toFixed(3)} ms (${s.counter.perS.toFixed(0)}/s)`,
    );
  }
} finally {
  await open.close();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}
