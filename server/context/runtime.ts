// What every request and job is given instead of reaching for it: the config, the database, the log, the metrics, the
// clock, the keys, the chains (facilitator and payment gateway), the settings and the upstream. Types only: building
// one is create-runtime.ts's, starting its jobs background-jobs.ts's.
import type pino from "pino";
import type { Config } from "../env";
import type { DbClient } from "../db";
import type { SignetMetrics } from "../metrics/registry";
import type { ServiceKeys } from "../keys/service-keys";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { PaymentGateway } from "../x402/payment-gateway";
import type { Upstream } from "../upstream";
import type { NetworkId } from "../verify";
import type { Settings } from "../settings/setting-definitions";
import type { SettingsMemory } from "../settings/read-settings";
import type { HealthCache } from "../health/check-health";
import type { ShutdownFlag } from "../health/shutdown-state";
import type { RecordOutbox } from "./record-outbox";

import type { Clock } from "../clock";

export { systemClock } from "../clock";

/** The chains a runtime pays and settles on. */
interface Chains {
  facilitator: Facilitator;
  gateway: PaymentGateway;
}

/**
 * Per settlement lane source, this process's last send released there: the database's clock at the release (epoch ms,
 * microsecond precision) and this process's monotonic clock once it committed. A request whose checks began after that
 * commit began after that send by the database's clock too, however late its own estimate of that clock is.
 */
export type LaneSends = Map<string, { sentMs: number; committedAt: number }>;

/** What a runtime remembers between requests. */
interface RuntimeState extends SettingsMemory {
  /** Per network and owner: the deposit owner's USDC account, made sure of once. */
  depositReady: Map<string, Promise<string>>;
  /** The last round of health probes. */
  health: HealthCache;
  /** Per RPC URL: the time (ms since epoch) before which no request may be sent to it (a 429's Retry-After). */
  rpcGates: Map<string, number>;
  /** When this runtime last started a purge of expired rows; null before the first. */
  lastPurgeAt: number | null;
  /** Whether this process is draining after a SIGTERM. */
  shutdown: ShutdownFlag;
  /** Records of answered calls that wait for the database to take them (record-outbox.ts). */
  records: RecordOutbox;
  /** Per settlement lane: the last send this process released there (settlement-lane.ts). */
  laneSends: LaneSends;
}

export interface Runtime {
  config: Config;
  db: DbClient;
  log: pino.Logger;
  metrics: SignetMetrics;
  clock: Clock;
  keys: ServiceKeys;
  chains: Chains;
  /** The same as chains.gateway: what the payment code reads. */
  gateway: PaymentGateway;
  upstream: Upstream;
  /** The operator settings for this request: the stored ones over the config's defaults. */
  settings: { read(): Promise<Settings> };
  /** Makes sure the deposit owner's USDC account exists on a network before a payment to it is requested. */
  ensureDepositReady(network: NetworkId, owner: string): Promise<string>;
  state: RuntimeState;
  /** Closes the database. Background jobs are stopped by the function that started them. */
  close(): Promise<void>;
}
