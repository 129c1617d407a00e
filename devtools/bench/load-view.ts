// The bench's per-second view of a timed run: where the machine's CPU went and where calls waited. Each second it reads
// the whole machine's CPU (/proc/stat), this process's, the service's processes' (when it runs in its own) and the
// PostgreSQL server's, the calls finished and in flight, and the service's own gauges: the steps under way (verify, settle, upstream), the database pool's connections and
// waiters, the chain RPC requests in flight and the settlements waiting for their payer's lane. A queue of ours shows
// as calls piling up at one of them while the cores sit idle.
import { readFileSync } from "node:fs";
import type { Registry } from "prom-client";
import { parseProcStat, readDatabaseCpuMs } from "./database-cpu";

/** The machine's CPU time so far, all cores, ms: busy (every state but idle and iowait) and in all. */
export interface MachineCpu {
  busyMs: number;
  totalMs: number;
}

/** Clock ticks per second of /proc/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/** /proc/stat's first line ("cpu  user nice system idle iowait irq softirq steal …") as busy and total ms; null if not one. */
export function parseMachineCpu(stat: string): MachineCpu | null {
  const line = stat.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) return null;
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 5 || !ticks.every((t) => Number.isInteger(t) && t >= 0)) return null;
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = ticks[3]! + ticks[4]!;
  return { busyMs: ((total - idle) * 1000) / TICKS_PER_S, totalMs: (total * 1000) / TICKS_PER_S };
}

function readMachineCpu(): MachineCpu | null {
  try {
    return parseMachineCpu(readFileSync("/proc/stat", "utf8"));
  } catch {
    return null;
  }
}

/** What a run's callers tell the view: calls finished so far, and calls in flight now. */
export interface RunProgress {
  done: number;
  inFlight: number;
}

/** One second of a run. CPU figures are cores busy over the second (1 = one core throughout); null where unreadable. */
export interface LoadSample extends ServiceGauges {
  second: number;
  callsDone: number;
  callsInFlight: number;
  /** Busy share of all the machine's cores, 0..1. */
  machineBusy: number | null;
  /** This process: the service too when it runs here, else the clients only. */
  benchCores: number;
  /** The service's own processes, when it runs in its own (null: it runs in this one). */
  serviceCores: number | null;
  databaseCores: number | null;
  /** The machine's busy cores less this process's, the service's and the database's: the chain's process, mostly. */
  otherCores: number | null;
}

/** The service's gauges the view reads: where its calls are, its database pool, its RPC requests and lane waits. */
export interface ServiceGauges {
  verifying: number;
  settling: number;
  upstream: number;
  poolTotal: number;
  poolIdle: number;
  poolWaiting: number;
  rpcInFlight: number;
  laneWaiting: number;
}

/** A gauge of `registry` summed over its labels, or over those whose `label` has the given value. */
async function gauge(registry: Registry, name: string, label?: [string, string]): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values
    .filter((v) => !label || v.labels[label[0]] === label[1])
    .reduce((sum, v) => sum + (typeof v.value === "number" ? v.value : 0), 0);
}

/** The service's gauges as its metrics registry holds them now. */
export async function readServiceGauges(registry: Registry): Promise<ServiceGauges> {
  const step = (name: string) => gauge(registry, "signet_steps_in_progress", ["step", name]);
  const pool = (state: string) => gauge(registry, "signet_db_pool_connections", ["state", state]);
  return {
    verifying: await step("verify"),
    settling: await step("settle"),
    upstream: (await step("upstream")) + (await step("upstream_first_byte")),
    poolTotal: await pool("total"),
    poolIdle: await pool("idle"),
    poolWaiting: await pool("waiting"),
    rpcInFlight: await gauge(registry, "signet_rpc_requests_in_flight"),
    laneWaiting: await gauge(registry, "signet_settlement_lane_waiting"),
  };
}

/** The sum of several instances' gauges. */
export function sumGauges(all: readonly ServiceGauges[]): ServiceGauges {
  const total: ServiceGauges = {
    verifying: 0,
    settling: 0,
    upstream: 0,
    poolTotal: 0,
    poolIdle: 0,
    poolWaiting: 0,
    rpcInFlight: 0,
    laneWaiting: 0,
  };
  for (const g of all) for (const key of Object.keys(total) as (keyof ServiceGauges)[]) total[key] += g[key];
  return total;
}

/** Where the view reads the service: its gauges, and the processes it runs in besides this one (their pids). */
export interface ServiceSource {
  gauges(): Promise<ServiceGauges>;
  pids: readonly number[];
}

/** A process's CPU time so far, ms (user + system), from /proc; null when it cannot be read. */
function readProcessCpuMs(pid: number): number | null {
  try {
    const parsed = parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return parsed ? ((parsed.utime + parsed.stime) * 1000) / TICKS_PER_S : null;
  } catch {
    return null;
  }
}

function readServiceCpuMs(pids: readonly number[]): number | null {
  let sum = 0;
  for (const pid of pids) {
    const ms = readProcessCpuMs(pid);
    if (ms === null) return null;
    sum += ms;
  }
  return sum;
}

/** Samples once a second until stopped; stop() resolves to the samples. */
export function startLoadView(service: ServiceSource, progress: RunProgress): { stop(): Promise<LoadSample[]> } {
  const samples: LoadSample[] = [];
  const cores = Math.max(1, readCoreCount());
  const read = () => ({
    at: performance.now(),
    machine: readMachineCpu(),
    bench: process.cpuUsage(),
    service: readServiceCpuMs(service.pids),
    database: readDatabaseCpuMs(),
    done: progress.done,
  });
  let last = read();
  let sampling: Promise<void> = Promise.resolve();
  const take = async () => {
    const now = read();
    const seconds = (now.at - last.at) / 1000;
    if (seconds <= 0) return;
    const coresOf = (ms: number | null) => (ms === null ? null : ms / 1000 / seconds);
    const benchCores = coresOf((now.bench.user + now.bench.system - last.bench.user - last.bench.system) / 1000)!;
    const serviceCores =
      service.pids.length === 0
        ? 0
        : coresOf(now.service !== null && last.service !== null ? now.service - last.service : null);
    const databaseCores = coresOf(
      now.database !== null && last.database !== null ? now.database - last.database : null,
    );
    const machine =
      now.machine && last.machine
        ? { busy: now.machine.busyMs - last.machine.busyMs, total: now.machine.totalMs - last.machine.totalMs }
        : null;
    const machineBusy = machine && machine.total > 0 ? machine.busy / machine.total : null;
    samples.push({
      second: samples.length + 1,
      callsDone: now.done - last.done,
      callsInFlight: progress.inFlight,
      machineBusy,
      benchCores,
      serviceCores: service.pids.length === 0 ? null : serviceCores,
      databaseCores,
      otherCores:
        machineBusy === null
          ? null
          : Math.max(0, machineBusy * cores - benchCores - (serviceCores ?? 0) - (databaseCores ?? 0)),
      ...(await service.gauges()),
    });
    last = now;
  };
  const timer = setInterval(() => {
    sampling = sampling.then(take);
  }, 1000);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      return samples;
    },
  };
}

function readCoreCount(): number {
  try {
    return readFileSync("/proc/stat", "utf8")
      .split("\n")
      .filter((l) => /^cpu\d+ /.test(l)).length;
  } catch {
    return 1;
  }
}

const COLUMNS: readonly [header: string, cell: (s: LoadSample) => string][] = [
  ["s", (s) => String(s.second)],
  ["calls", (s) => String(s.callsDone)],
  ["in flight", (s) => String(s.callsInFlight)],
  ["machine busy", (s) => (s.machineBusy === null ? "–" : `${Math.round(s.machineBusy * 100)}%`)],
  ["bench cores", (s) => s.benchCores.toFixed(2)],
  ["service cores", (s) => (s.serviceCores === null ? "–" : s.serviceCores.toFixed(2))],
  ["PostgreSQL cores", (s) => (s.databaseCores === null ? "–" : s.databaseCores.toFixed(2))],
  ["other cores", (s) => (s.otherCores === null ? "–" : s.otherCores.toFixed(2))],
  ["verifying", (s) => String(s.verifying)],
  ["settling", (s) => String(s.settling)],
  ["upstream", (s) => String(s.upstream)],
  ["pool total/idle", (s) => `${s.poolTotal}/${s.poolIdle}`],
  ["pool waiting", (s) => String(s.poolWaiting)],
  ["RPC in flight", (s) => String(s.rpcInFlight)],
  ["lane waiting", (s) => String(s.laneWaiting)],
];

/** The samples as a Markdown table, one row per second. */
export function renderLoadView(samples: readonly LoadSample[]): string {
  return [
    `| ${COLUMNS.map(([h]) => h).join(" | ")} |`,
    `|${COLUMNS.map(() => "---").join("|")}|`,
    ...samples.map((s) => `| ${COLUMNS.map(([, cell]) => cell(s)).join(" | ")} |`),
  ].join("\n");
}

/** The machine's busy share over a run's samples, weighting each second alike; null when none was readable. */
export function meanMachineBusy(samples: readonly LoadSample[]): number | null {
  const known = samples.map((s) => s.machineBusy).filter((b): b is number => b !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}
