// Readiness and its parts: the database, each configured chain's RPC, the fee payer's gas money, the upstream model
// provider, and whether the receipt log's key may sign the stored log. Every probe has a time limit and all run at
// once; their results are cached for HEALTH_CACHE_MS so a storm of load-balancer checks costs the RPCs one round of
// probes a second. Whether to take traffic is judged afresh on every read, so a SIGTERM turns readiness off at once.
// The public answer is the verdict only; the parts' detail (addresses, balances, latencies) goes to the metrics token's
// holder.
import "server-only";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { NetworkRow } from "../verify";
import type { DbClient } from "../db";
import type { Config } from "../env";
import type { ServiceKeys } from "../keys/service-keys";
import { readLogKeyContinuity } from "../transparency/publish-log";
import { readFeePayerHealth, type FeePayerHealth } from "../dashboard/fee-payer-health";
import { metricsAccess } from "./metrics-token";
import { runProbe, type ProbeFailure } from "./run-probe";
import type { ShutdownFlag } from "./shutdown-state";
import type { Clock } from "../clock";

/** How long one round of probes answers every health read and metrics scrape. */
const HEALTH_CACHE_MS = 1_000;

export interface HealthDeps {
  db: () => Promise<DbClient>;
  facilitator: () => Promise<Facilitator>;
  upstream: { baseUrl: string; apiKey: string | undefined; providerName: string };
  /** Whether the log key may sign the stored log (readLogKeyContinuity); unset: not probed (no runtime). */
  receiptLog?: () => Promise<ReceiptLogHealth>;
  /** Each probe's time limit (HEALTH_PROBE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Where the probes read time: their latencies, the report's time, a block's age. */
  clock: Clock;
}

/** The receipt log's sequencer: signing, or stalled because its key did not sign the latest checkpoint. */
type ReceiptLogHealth = { ok: true } | { ok: false; stalled: string };

interface ChainHealth {
  network: string;
  label: string;
  ok: boolean;
  latencyMs: number;
  error?: ProbeFailure;
  /** Solana: slots between the processed and the confirmed tip. */
  slotLag?: number;
  /** Base: seconds since the latest block (an idle local chain mines no blocks, so this only informs). */
  latestBlockAgeSeconds?: number;
}

interface HealthProbes {
  checkedAt: string;
  database: { ok: boolean; latencyMs: number; error?: ProbeFailure };
  chains: ChainHealth[];
  feePayer: { ok: boolean; error?: ProbeFailure; accounts: FeePayerHealth[] };
  upstream: {
    kind: "provider" | "built-in";
    name: string;
    ok: boolean;
    latencyMs?: number;
    status?: number;
    error?: ProbeFailure;
  };
  /** Absent when not probed, or when the probe could not read the log (the database's own probe says why). */
  receiptLog?: ReceiptLogHealth;
}

export interface HealthReport extends HealthProbes {
  /** ok: all good; degraded: serving with a part down; unavailable: this instance should not take traffic. */
  status: "ok" | "degraded" | "unavailable";
  ready: boolean;
  /** Why the instance should not take traffic (empty when ready). */
  reasons: string[];
  /** The reasons without figures (balances, levels): what anyone may read. */
  publicReasons: string[];
  /** Parts down or low that do not stop traffic. */
  warnings: string[];
  shuttingDown: boolean;
}

/** Runs every probe at once, each bounded by the time limit. */
async function probeHealth(deps: HealthDeps): Promise<HealthProbes> {
  const { timeoutMs } = deps;
  const facilitator = deps.facilitator();
  const [database, chains, feePayer, upstream, receiptLog] = await Promise.all([
    runProbe(async () => (await deps.db()).$queryRaw`SELECT 1`, timeoutMs, deps.clock),
    // A facilitator that cannot be built (its key missing) is a start-up error `npm start` reports; here it is no chains.
    facilitator.then((f) => probeChains(f, timeoutMs, deps.clock)).catch((): ChainHealth[] => []),
    runProbe(async () => readFeePayerHealth(await facilitator), timeoutMs, deps.clock),
    probeUpstream(deps.upstream, timeoutMs, deps.clock),
    deps.receiptLog ? runProbe(deps.receiptLog, timeoutMs, deps.clock) : null,
  ]);
  return {
    checkedAt: new Date(deps.clock.now()).toISOString(),
    database: database.ok
      ? { ok: true, latencyMs: database.latencyMs }
      : { ok: false, latencyMs: database.latencyMs, error: database.error },
    chains,
    feePayer: feePayer.ok ? { ok: true, accounts: feePayer.value } : { ok: false, error: feePayer.error, accounts: [] },
    upstream,
    ...(receiptLog?.ok ? { receiptLog: receiptLog.value } : {}),
  };
}

function probeChains(facilitator: Facilitator, timeoutMs: number, clock: Clock): Promise<ChainHealth[]> {
  const solana = Object.keys(facilitator.rpcs).map(async (id): Promise<ChainHealth> => {
    const rpc = facilitator.rpcs[id]!;
    const probe = await runProbe(
      async () => {
        const [processed, confirmed] = await Promise.all([
          rpc.getSlot({ commitment: "processed" }).send(),
          rpc.getSlot({ commitment: "confirmed" }).send(),
        ]);
        return Number(processed - confirmed);
      },
      timeoutMs,
      clock,
    );
    return chainResult(facilitator.networks.get(id), probe, (lag) => ({ slotLag: Math.max(0, lag) }));
  });
  const evm = facilitator.evm;
  const base = Object.keys(evm?.clients ?? {}).map(async (id): Promise<ChainHealth> => {
    const probe = await runProbe(
      async () => {
        const block = await evm!.clients[id]!.getBlock({ blockTag: "latest" });
        return Math.max(0, Math.round(clock.now() / 1000 - Number(block.timestamp)));
      },
      timeoutMs,
      clock,
    );
    return chainResult(facilitator.networks.get(id), probe, (age) => ({ latestBlockAgeSeconds: age }));
  });
  return Promise.all([...solana, ...base]);
}

function chainResult(
  row: NetworkRow,
  probe: Awaited<ReturnType<typeof runProbe<number>>>,
  extra: (v: number) => Partial<ChainHealth>,
): ChainHealth {
  const { caip2: network, label } = row;
  if (!probe.ok) return { network, label, ok: false, latencyMs: probe.latencyMs, error: probe.error };
  return { network, label, ok: true, latencyMs: probe.latencyMs, ...extra(probe.value) };
}

async function probeUpstream(
  upstream: HealthDeps["upstream"],
  timeoutMs: number,
  clock: Clock,
): Promise<HealthProbes["upstream"]> {
  // Without a provider key only the built-in model is offered: it runs in this process.
  if (!upstream.apiKey) return { kind: "built-in", name: "local", ok: true };
  const probe = await runProbe(
    async () => {
      const res = await fetch(`${upstream.baseUrl.replace(/\/+$/, "")}/models`, {
        headers: { authorization: `Bearer ${upstream.apiKey}` },
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel();
      return res.status;
    },
    timeoutMs,
    clock,
  );
  if (!probe.ok)
    return { kind: "provider", name: upstream.providerName, ok: false, latencyMs: probe.latencyMs, error: probe.error };
  return {
    kind: "provider",
    name: upstream.providerName,
    ok: probe.value >= 200 && probe.value < 300,
    latencyMs: probe.latencyMs,
    status: probe.value,
  };
}

/**
 * Whether to take traffic. Not ready: shutting down, the database down (no call can be admitted or recorded), every
 * chain down (no payment can be verified or settled), or a fee payer under its alert level (settlements are about to
 * fail). Every instance shares the fee payer, so that last one takes them all out together: it is an alert, on purpose.
 */
function judgeHealth(probes: HealthProbes, shuttingDown: boolean): HealthReport {
  const reasons: string[] = [];
  const publicReasons: string[] = [];
  const refuse = (reason: string, figures = "") => {
    publicReasons.push(reason);
    reasons.push(reason + figures);
  };
  const warnings: string[] = [];
  if (shuttingDown) refuse("shutting down");
  if (!probes.database.ok) refuse(`database ${probes.database.error}`);
  const down = probes.chains.filter((c) => !c.ok);
  if (probes.chains.length > 0 && down.length === probes.chains.length)
    refuse(`every chain RPC is down: ${down.map((c) => c.network).join(", ")}`);
  else for (const c of down) warnings.push(`chain RPC ${c.network} ${c.error}`);
  for (const account of probes.feePayer.accounts) {
    if (account.level === "alert")
      refuse(
        `fee payer below the alert level on ${account.network}`,
        `: ${account.balance} ${account.unit} < ${account.alertBelow}`,
      );
    else if (account.level === "warn")
      warnings.push(
        `fee payer below the warn level on ${account.network}: ${account.balance} ${account.unit} < ${account.warnBelow}`,
      );
    else if (account.level === "unreachable") warnings.push(`fee payer balance unreadable on ${account.network}`);
  }
  if (!probes.feePayer.ok) warnings.push(`fee payer balances ${probes.feePayer.error}`);
  if (!probes.upstream.ok)
    warnings.push(`upstream ${probes.upstream.name} ${probes.upstream.error ?? `answered ${probes.upstream.status}`}`);
  // Calls are still served and their receipts wait in staging, signed by the operator key: the log is late, not lost.
  if (probes.receiptLog && !probes.receiptLog.ok)
    warnings.push(`receipt log stalled (log.key_mismatch): ${probes.receiptLog.stalled}`);
  const ready = reasons.length === 0;
  return {
    ...probes,
    status: !ready ? "unavailable" : warnings.length > 0 ? "degraded" : "ok",
    ready,
    reasons,
    publicReasons,
    warnings,
    shuttingDown,
  };
}

/** The last round of probes, kept for HEALTH_CACHE_MS. */
export interface HealthCache {
  entry: { at: number; probes: Promise<HealthProbes> } | null;
}

/** Where a health read gets its parts, its cached probes, the drain flag and the metrics token from. */
export interface HealthSource {
  config: Pick<Config, "METRICS_TOKEN" | "isProduction">;
  deps: () => HealthDeps;
  cache: HealthCache;
  shutdown: ShutdownFlag;
  /** Where the cache's age is judged. */
  clock: Clock;
}

/** The probes' parts of a built runtime. */
export function runtimeHealthDeps(runtime: {
  config: Config;
  db: DbClient;
  chains: { facilitator: Facilitator };
  keys: Pick<ServiceKeys, "log">;
  clock: Clock;
}): HealthDeps {
  const cfg = runtime.config;
  return {
    db: async () => runtime.db,
    facilitator: async () => runtime.chains.facilitator,
    upstream: {
      baseUrl: cfg.UPSTREAM_BASE_URL,
      apiKey: cfg.UPSTREAM_API_KEY,
      providerName: cfg.UPSTREAM_PROVIDER_NAME,
    },
    receiptLog: async () => {
      const continuity = await readLogKeyContinuity(runtime.db, runtime.keys.log());
      return continuity.ok ? { ok: true } : { ok: false, stalled: continuity.detail };
    },
    timeoutMs: cfg.HEALTH_PROBE_TIMEOUT_MS,
    clock: runtime.clock,
  };
}

/** The health report: probes at most once per HEALTH_CACHE_MS per cache, readiness judged now. */
async function readHealth(source: Pick<HealthSource, "deps" | "cache" | "shutdown" | "clock">): Promise<HealthReport> {
  const now = source.clock.monotonic();
  let entry = source.cache.entry;
  if (!entry || now - entry.at >= HEALTH_CACHE_MS) {
    entry = { at: now, probes: probeHealth(source.deps()) };
    source.cache.entry = entry;
  }
  return judgeHealth(await entry.probes, source.shutdown.isShuttingDown());
}

/** The health report of a built runtime, through its own cache and drain flag. */
export function readRuntimeHealth(
  runtime: Parameters<typeof runtimeHealthDeps>[0] & { state: { health: HealthCache; shutdown: ShutdownFlag } },
): Promise<HealthReport> {
  return readHealth({
    deps: () => runtimeHealthDeps(runtime),
    cache: runtime.state.health,
    shutdown: runtime.state.shutdown,
    clock: runtime.clock,
  });
}

/** What anyone may read of the health: the verdict and why, no address, balance, latency or lag. */
export interface PublicHealth {
  status: HealthReport["status"];
  reasons: string[];
}

/**
 * The health answer for a request: the whole report for the holder of the metrics token (anyone outside production
 * when none is configured, as for /metrics), else the public verdict. A missing or wrong token is never an error here:
 * load balancers read this without one.
 */
export async function readHealthFor(
  authorization: string | null,
  source: HealthSource,
): Promise<{ ready: boolean; body: HealthReport | PublicHealth }> {
  const report = await readHealth(source);
  if (metricsAccess(authorization, source.config) === "granted") return { ready: report.ready, body: report };
  return { ready: report.ready, body: { status: report.status, reasons: report.publicReasons } };
}
