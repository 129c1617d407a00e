// Builds a runtime from a config: opens and migrates the database, loads the keys lazily, builds the facilitator and
// the payment gateway, the upstream and the metrics. Starts nothing: the entry point that wants the background jobs
// calls startBackgroundJobs (background-jobs.ts).
import "server-only";
import type pino from "pino";
import type { Config } from "../env";
import { openDatabase, type OpenDb } from "../db";
import { hotPoolStats } from "../db/hot-query";
import { createLogger } from "../log";
import { createMetrics } from "../metrics/registry";
import { createServiceKeys, type ServiceKeys } from "../keys/service-keys";
import { createFacilitator, type Facilitator, type ReadyAnnouncements } from "../facilitator/create-facilitator";
import { createPaymentGateway, type PaymentGateway } from "../x402/payment-gateway";
import { createOfferReceipts } from "../x402/offer-receipt";
import { createUpstream, type Upstream } from "../upstream";
import { readSettings } from "../settings/read-settings";
import { createShutdownFlag, type ShutdownFlag } from "../health/shutdown-state";
import type { HealthCache } from "../health/check-health";
import { RecordOutbox } from "../context/record-outbox";
import { createDepositReadiness } from "./deposit-ready";
import { type Runtime } from "../context/runtime";
import { systemClock, type Clock } from "../clock";

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
  /**
   * The chains' facilitator: every family's clients in one (Solana's RPCs and signer, the EVM side in `evm`), as
   * createFacilitator builds it. Default: the given gateway's, else the one the config names.
   */
  facilitator?: Facilitator;
  /**
   * The payment gateway (the payment code reaches the chains through its `facilitator`); default: one built over the
   * facilitator and the operator key.
   */
  gateway?: PaymentGateway;
  /** The model provider; default: the one the config names. */
  upstream?: Upstream;
  /** The signing keys; default: the ones the config names, loaded on first use. */
  keys?: ServiceKeys;
  /** The runtime's logger; default: one at the config's LOG_LEVEL. */
  log?: pino.Logger;
}

/** Builds the runtime `config` describes. Throws a ConfigError naming the variable when a key or address is wrong. */
export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const log = opts.log ?? createLogger(config.logLevel);
  for (const warning of config.warnings) log.warn({ event: "config.read_as_default", detail: warning }, warning);
  for (const line of config.deprecations) log.warn({ event: "config.deprecated", detail: line }, line);
  const clock = opts.clock ?? systemClock;
  const metrics = createMetrics(clock);
  const rpcGates = new Map<string, number>();
  const open = opts.database ?? (await openDatabase(config, log));
  try {
    const db = open.prisma;
    metrics.poolStats.read = () => hotPoolStats(db);
    if (opts.gateway && opts.facilitator && opts.gateway.facilitator !== opts.facilitator) {
      throw new Error(
        "createRuntime: the facilitator given is not the given gateway's (the payment code reaches the chains through the gateway)",
      );
    }
    const facilitator =
      opts.facilitator ??
      opts.gateway?.facilitator ??
      (await createFacilitator(config, {
        db: async () => db,
        rpcGates,
        metrics,
        clock,
        log,
        announced: opts.announced ?? new Set(),
      }));
    const keys = opts.keys ?? createServiceKeys(config);
    const gateway =
      opts.gateway ??
      (await createPaymentGateway(
        facilitator,
        createOfferReceipts({ operatorKey: keys.operator, baseUrl: config.baseUrl, clock, log }),
        config.baseUrl,
      ));
    const upstream =
      opts.upstream ??
      createUpstream({
        baseUrl: config.UPSTREAM_BASE_URL,
        ...(config.UPSTREAM_API_KEY ? { apiKey: config.UPSTREAM_API_KEY } : {}),
        timeoutMs: config.UPSTREAM_TIMEOUT_MS,
        localStreamDelayMs: config.LOCAL_MODEL_STREAM_DELAY_MS,
        providerName: config.UPSTREAM_PROVIDER_NAME,
        clock,
      });
    const depositReady = new Map<string, Promise<string>>();
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
      settings: { read: () => readSettings(db, config, log) },
      ensureDepositReady: createDepositReadiness(gateway, depositReady, { clock, log }),
      state: {
        depositReady,
        health: opts.health ?? { entry: null },
        rpcGates,
        lastPurgeAt: null,
        settingsSeen: null,
        shutdown: opts.shutdown ?? createShutdownFlag(),
        records: new RecordOutbox(clock, log),
        laneSends: new Map(),
      },
      close: () => open.close(),
    };
  } catch (err) {
    await open.close().catch(() => undefined);
    throw err;
  }
}
