// The route edge: the one place that keeps a runtime for the process. Next may load the route modules more than once
// (and the front server, bin/start/serve-next.ts, is another module instance), so what they share sits on globalThis under
// one registered symbol: the runtime, the stop function of its background jobs, the drain flag, the health cache and
// the facilitator announcements. Route handlers call routeRuntime() (or requestRuntime(), whose logger carries the
// request's id) and pass the runtime down; nothing else in the service reaches for a global. Being the edge, this is
// also where a logger is made before a runtime exists (routeLog), and where the health fallback reads the wall clock. No "server-only" here and only dynamic imports of the service: the front server loads
// this module outside Next for the drain flag.
import type pino from "pino";
import type { Config } from "../env";
import type { HealthCache, HealthSource } from "../health/check-health";
import type { ShutdownFlag } from "../health/shutdown-state";
import type { Runtime } from "../context/runtime";

interface Edge {
  runtime?: Promise<Runtime>;
  stopJobs?: () => void;
  /** The config the next runtime is built from; unset: the process environment. */
  config?: Config;
  draining: boolean;
  health: HealthCache;
  announced: Set<string>;
  /** The logger the next runtime logs to; unset: one of its own at its config's level. */
  log?: pino.Logger;
}

const EDGE = Symbol.for("signet.routeEdge");

function edge(): Edge {
  const holder = globalThis as unknown as Record<symbol, Edge | undefined>;
  return (holder[EDGE] ??= { draining: false, health: { entry: null }, announced: new Set() });
}

/** The drain flag the front server marks on SIGTERM and readiness reads. */
export const edgeShutdown: ShutdownFlag = {
  markShuttingDown: () => {
    edge().draining = true;
  },
  isShuttingDown: () => edge().draining,
};

/** The config the routes run with: the one set by useRouteConfig, else the process environment's. */
export async function routeConfig(): Promise<Config> {
  const e = edge();
  if (e.config) return e.config;
  const { loadConfig, processEnv } = await import("../env");
  return loadConfig(processEnv());
}

/**
 * The routes' runtime, built on first use (never at import time: `next build` evaluates route modules) with its
 * background jobs started. A failed build is retried on the next call.
 */
export function routeRuntime(): Promise<Runtime> {
  const e = edge();
  if (!e.runtime) {
    const building = buildRouteRuntime(e);
    e.runtime = building;
    building.catch(() => {
      if (e.runtime === building) e.runtime = undefined;
    });
  }
  return e.runtime;
}

async function buildRouteRuntime(e: Edge): Promise<Runtime> {
  const config = await routeConfig();
  const [{ createRuntime }, { startBackgroundJobs }, { ConfigError }, { AppError }, { createLogger }] =
    await Promise.all([
      import("./create-runtime"),
      import("./background-jobs"),
      import("../env"),
      import("../errors"),
      import("../log"),
    ]);
  const runtime = await createRuntime(config, {
    shutdown: edgeShutdown,
    health: e.health,
    announced: e.announced,
    ...(e.log ? { log: e.log } : {}),
  }).catch((err: unknown) => {
    // The message names the variable for the operator's logs; clients see only the stable code.
    if (!(err instanceof ConfigError)) throw err;
    createLogger(config.logLevel).error(
      { event: "runtime.config_error", reason: err.message },
      "the service is misconfigured",
    );
    throw new AppError("server_misconfigured", "the service is misconfigured");
  });
  e.stopJobs = startBackgroundJobs(runtime);
  return runtime;
}

/** The routes' runtime for one request: its logger is a child of the runtime's carrying `request_id`. */
export async function requestRuntime(requestId: string): Promise<Runtime> {
  const runtime = await routeRuntime();
  return { ...runtime, log: runtime.log.child({ request_id: requestId }) };
}

/**
 * Where a request's failure is logged: the routes' runtime's logger with `request_id`, or, when no runtime can be
 * built (its config or database is what failed), a logger at the route config's level (info when that cannot be read).
 */
export async function routeLog(requestId: string): Promise<pino.Logger> {
  const { createLogger } = await import("../log");
  // The runtime there is, if any: a failed build is not tried again just to log its failure.
  const runtime = (await edge().runtime?.catch(() => null)) ?? null;
  if (runtime) return runtime.log.child({ request_id: requestId });
  const level = await routeConfig().then(
    (config) => config.logLevel,
    () => "info" as const,
  );
  return createLogger(level).child({ request_id: requestId });
}

/**
 * Where the health route reads from. When the runtime cannot be built (its database unreachable), the probes still
 * run: the database's fails with the reason, and the chains are probed through a facilitator built from the config.
 */
export async function routeHealthSource(): Promise<HealthSource> {
  const e = edge();
  const { runtimeHealthDeps } = await import("../health/check-health");
  const runtime = await routeRuntime().catch((err: unknown) => err as Error);
  if (!(runtime instanceof Error))
    return {
      config: runtime.config,
      deps: () => runtimeHealthDeps(runtime),
      cache: e.health,
      shutdown: edgeShutdown,
      clock: runtime.clock,
    };
  const config = await routeConfig();
  const [{ createFacilitator }, { systemClock }] = await Promise.all([
    import("../facilitator/create-facilitator"),
    import("../context/runtime"),
  ]);
  return {
    config,
    deps: () => ({
      db: () => Promise.reject(runtime),
      facilitator: () => createFacilitator(config),
      upstream: {
        baseUrl: config.UPSTREAM_BASE_URL,
        apiKey: config.UPSTREAM_API_KEY,
        providerName: config.UPSTREAM_PROVIDER_NAME,
      },
      timeoutMs: config.HEALTH_PROBE_TIMEOUT_MS,
      clock: systemClock,
    }),
    cache: e.health,
    shutdown: edgeShutdown,
    clock: systemClock,
  };
}

/**
 * Writes what the routes' runtime's record outbox still holds (calls answered while the database was away), for up to
 * `ms`: a draining process tries before it exits, since a record left behind means that call's takeover asks the model
 * again. Returns how many records are still waiting (0 also when no runtime was built).
 */
export async function flushRouteRecords(ms: number): Promise<number> {
  const runtime = await edge().runtime?.catch(() => null);
  if (!runtime) return 0;
  const records = runtime.state.records;
  const deadline = runtime.clock.now() + ms;
  while (records.size > 0 && runtime.clock.now() < deadline) {
    await records.drain();
    if (records.size > 0) await new Promise((r) => setTimeout(r, RECORD_FLUSH_PAUSE_MS));
  }
  return records.size;
}

/** The pause between rounds of a flush while the database does not take the records. */
const RECORD_FLUSH_PAUSE_MS = 200;

/** Stops the routes' runtime's jobs and closes it; the next routeRuntime() builds a new one. */
export async function closeRouteRuntime(): Promise<void> {
  const e = edge();
  const current = e.runtime;
  e.runtime = undefined;
  e.stopJobs?.();
  e.stopJobs = undefined;
  e.health.entry = null;
  const runtime = await current?.catch(() => null);
  await runtime?.close();
}

/**
 * Makes the routes run with `config` (null: the process environment again) from the next request on; the runtime
 * they had is closed (the returned promise settles once it is). For entry points that parsed the config themselves,
 * and tests.
 */
export function useRouteConfig(config: Config | null): Promise<void> {
  const closing = closeRouteRuntime();
  const e = edge();
  if (config) e.config = config;
  else delete e.config;
  return closing;
}

/**
 * Makes the runtimes the routes build from now on log to `log` (null: each to a logger of its own, at its config's
 * level). For entry points that made their logger, and tests that read what was logged.
 */
export function useRouteLogger(log: pino.Logger | null): void {
  const e = edge();
  if (log) e.log = log;
  else delete e.log;
}

/** Drops the cached health probes. Tests only. */
export function resetHealthCacheForTests(): void {
  edge().health.entry = null;
}

/** Clears the drain flag. Tests only. */
export function resetShutdownForTests(): void {
  edge().draining = false;
}
