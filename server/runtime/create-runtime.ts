// Builds a runtime from a config: opens and migrates the database, loads the keys lazily, builds the facilitator and
// the payment gateway, the upstream and the metrics. Starts nothing: the entry point that wants the background jobs
// calls startBackgroundJobs (background-jobs.ts).
import "server-only";
import type { Config } from "../env";
import { openDatabase, type OpenDb } from "../db";
import { createLogger, setDefaultLogLevel } from "../log";
import { createMetrics } from "../metrics/registry";
import { createServiceKeys } from "../keys/service-keys";
import { createFacilitator, type ReadyAnnouncements } from "../facilitator/create-facilitator";
import { createPaymentGateway } from "../x402/payment-gateway";
import { createOfferReceipts } from "../x402/offer-receipt";
import { createUpstream } from "../upstream";
import { readSettings } from "../settings/read-settings";
import { createShutdownFlag, type ShutdownFlag } from "../health/shutdown-state";
import type { HealthCache } from "../health/check-health";
import { RecordOutbox } from "../pipeline/record-outbox";
import { createDepositReadiness } from "./deposit-ready";
import { systemClock, type Clock, type Runtime } from "./runtime";

export interface RuntimeOptions {
  /** Default: the wall clock. */
  clock?: Clock;
  /** The drain flag readiness reads; default: the runtime's own. */
  shutdown?: ShutdownFlag;
  /** The health probes' cache; default: the runtime's own. */
  health?: HealthCache;
  /**
   * The `facilitator.kms.ready` lines already logged: a runtime rebuilt in the same process passes the same set and
   * does not repeat the line. Default: a fresh set (the line is logged).
   */
  announced?: ReadyAnnouncements;
  /** An already open database to use instead of opening the one the config names (closed with the runtime). */
  database?: OpenDb;
}

/** Builds the runtime `config` describes. Throws a ConfigError naming the variable when a key or address is wrong. */
export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  setDefaultLogLevel(config.logLevel);
  const log = createLogger(config.logLevel);
  for (const warning of config.warnings) log.warn({ event: "config.read_as_default", detail: warning }, warning);
  for (const line of config.deprecations) log.warn({ event: "config.deprecated", detail: line }, line);
  const metrics = createMetrics();
  const rpcGates = new Map<string, number>();
  const open = opts.database ?? (await openDatabase(config));
  try {
    const db = open.prisma;
    const facilitator = await createFacilitator(config, { db: async () => db, rpcGates, metrics, announced: opts.announced ?? new Set() });
    const keys = createServiceKeys(config);
    const gateway = await createPaymentGateway(facilitator, createOfferReceipts({ operatorKey: keys.operator, baseUrl: config.baseUrl }), config.baseUrl);
    const upstream = createUpstream({
      baseUrl: config.UPSTREAM_BASE_URL,
      ...(config.UPSTREAM_API_KEY ? { apiKey: config.UPSTREAM_API_KEY } : {}),
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      localStreamDelayMs: config.LOCAL_MODEL_STREAM_DELAY_MS,
      providerName: config.UPSTREAM_PROVIDER_NAME,
    });
    const depositReady = new Map<string, Promise<string>>();
    const clock = opts.clock ?? systemClock;
    return {
      config,
      db,
      log,
      metrics,
      clock,
      keys,
      chains: { facilitator, gateway },
      gateway,
      upstream,
      settings: { read: () => readSettings(db, config) },
      ensureDepositReady: createDepositReadiness(gateway, depositReady),
      state: { depositReady, health: opts.health ?? { entry: null }, rpcGates, lastPurgeAt: null, shutdown: opts.shutdown ?? createShutdownFlag(), records: new RecordOutbox(clock) },
      close: () => open.close(),
    };
  } catch (err) {
    await open.close().catch(() => undefined);
    throw err;
  }
}
