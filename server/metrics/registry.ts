// A runtime's Prometheus metrics: one prom-client registry per runtime (the route edge keeps one runtime per process).
// Metrics are per process: with several instances, Prometheus scrapes each one and sums across them.
import "server-only";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Clock } from "../clock";

/** Seconds; from a fast local verify to a slow provider's whole answer. */
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A fresh registry with every metric the service counts, and no step listener; steps are timed by `clock`. */
export function createMetrics(clock: Clock) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const r = [registry];
  const poolStats: { read: (() => PoolStats | null) | null } = { read: null };
  return {
    registry,
    /** Where signet_db_pool_connections reads the pool; the runtime sets it once its database is open. */
    poolStats,
    /** Where timeStep measures a step's duration. */
    clock,
    /** Told of every step observation (onStep). */
    stepListeners: new Set<StepListener>(),
    /** route: paid (chat), prepaid (inference), topup; outcome: served, refused (with its error code), upstream_error, aborted. */
    calls: new Counter({
      name: "signet_calls_total",
      help: "Calls by route, network, outcome and (for refusals) error code",
      labelNames: ["route", "network", "outcome", "code"] as const,
      registers: r,
    }),
    /**
     * outcome: ok; pending (broadcast, confirmation not seen within the wait); recovered (landed after a refusal, a
     * crash or while pending); failed; expired (pending, and it can never land); unknown (the chain could not say).
     */
    settlements: new Counter({
      name: "signet_settlements_total",
      help: "x402 settlements by network, purpose and outcome",
      labelNames: ["network", "purpose", "outcome"] as const,
      registers: r,
    }),
    paymentRequired: new Counter({
      name: "signet_payment_required_total",
      help: "402 answers by network and reason",
      labelNames: ["network", "reason"] as const,
      registers: r,
    }),
    feeLamports: new Counter({
      name: "signet_solana_fee_lamports_total",
      help: "Lamports the Solana fee payer spent on settlements",
      labelNames: ["network"] as const,
      registers: r,
    }),
    /**
     * step: verify, settle, upstream_first_byte, upstream (the upstream request's whole time, to its last byte), total
     * (the served call: upstream request to captured hold).
     */
    stepSeconds: new Histogram({
      name: "signet_step_duration_seconds",
      help: "Duration of each step of a call",
      labelNames: ["step", "network"] as const,
      buckets: STEP_BUCKETS,
      registers: r,
    }),
    /** reason: rate_limited (429), unavailable (502/503/504), timeout, transport (connection failed). */
    rpcRetries: new Counter({
      name: "signet_rpc_retries_total",
      help: "Chain RPC requests retried, by network and reason",
      labelNames: ["network", "reason"] as const,
      registers: r,
    }),
    reconcileDrift: new Gauge({
      name: "signet_reconcile_drift",
      help: "Mismatches the last reconcile found, per network",
      labelNames: ["network"] as const,
      registers: r,
    }),
    // Set at scrape time (collect-scrape-gauges.ts).
    ready: new Gauge({
      name: "signet_ready",
      help: "1 when this instance should take traffic (GET /api/health)",
      registers: r,
    }),
    chainUp: new Gauge({
      name: "signet_chain_rpc_up",
      help: "1 when the chain RPC answered its health probe",
      labelNames: ["network"] as const,
      registers: r,
    }),
    feePayerBalance: new Gauge({
      name: "signet_fee_payer_balance",
      help: "The facilitator's gas balance, in SOL or ETH",
      labelNames: ["network", "unit"] as const,
      registers: r,
    }),
    ledgerCredits: new Gauge({
      name: "signet_ledger_credits_units",
      help: "Sum of every credit in the ledger, USDC atomic units",
      labelNames: ["network"] as const,
      registers: r,
    }),
    ledgerCharges: new Gauge({
      name: "signet_ledger_charges_units",
      help: "Sum of every captured charge, USDC atomic units",
      labelNames: ["network"] as const,
      registers: r,
    }),
    openHolds: new Gauge({
      name: "signet_open_holds",
      help: "Credit holds still held",
      labelNames: ["network"] as const,
      registers: r,
    }),
    openHoldUnits: new Gauge({
      name: "signet_open_hold_units",
      help: "USDC atomic units in credit holds still held",
      labelNames: ["network"] as const,
      registers: r,
    }),
    /** Where calls are waiting right now: each step of a call that timeStep times, while it runs. */
    stepsInProgress: new Gauge({
      name: "signet_steps_in_progress",
      help: "Steps of calls under way now, by step (verify, settle, upstream): where calls are waiting",
      labelNames: ["step"] as const,
      registers: r,
    }),
    rpcInFlight: new Gauge({
      name: "signet_rpc_requests_in_flight",
      help: "Chain RPC requests sent and not yet answered, by network (a request's retries and gate waits included)",
      labelNames: ["network"] as const,
      registers: r,
    }),
    laneWaiting: new Gauge({
      name: "signet_settlement_lane_waiting",
      help: "Settlements waiting for their payer's settlement lane, which another settlement of that payer holds",
      registers: r,
    }),
    /** state: total and idle connections, and waiting (queries waiting for a connection); read from the pool at scrape. */
    dbPool: new Gauge({
      name: "signet_db_pool_connections",
      help: "The database pool: its connections (total, idle) and the queries waiting for one (waiting)",
      labelNames: ["state"] as const,
      registers: r,
      collect() {
        const stats = poolStats.read?.();
        if (!stats) return;
        this.set({ state: "total" }, stats.total);
        this.set({ state: "idle" }, stats.idle);
        this.set({ state: "waiting" }, stats.waiting);
      },
    }),
    recordsWaiting: new Gauge({
      name: "signet_records_waiting",
      help: "Answered calls of this instance whose record waits for the database (its outbox)",
      registers: r,
    }),
  };
}

export type SignetMetrics = ReturnType<typeof createMetrics>;

/** A connection pool's counts: its connections, those idle, and the queries waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The steps of a call that `signet_step_duration_seconds` observes. */
export type Step = "verify" | "settle" | "upstream_first_byte" | "upstream" | "total";

/** Told of every step observation, in the caller's async context (the bench sums a call's steps this way). */
export type StepListener = (step: Step, network: string, seconds: number) => void;

/** Registers `listener` for every step observation of `m`; returns its unsubscribe. With none registered, steps cost nothing more. */
export function onStep(m: SignetMetrics, listener: StepListener): () => void {
  m.stepListeners.add(listener);
  return () => {
    m.stepListeners.delete(listener);
  };
}

/** Observes `seconds` under `step` and tells the step listeners. */
export function observeStep(m: SignetMetrics, step: Step, network: string, seconds: number): void {
  m.stepSeconds.observe({ step, network }, seconds);
  if (m.stepListeners.size > 0) for (const listener of m.stepListeners) listener(step, network, seconds);
}

/** Runs `fn`, observing its duration under each of `steps`; the observation is made whether it resolves or throws. */
export async function timeStep<T>(
  m: SignetMetrics,
  steps: Step | readonly Step[],
  network: string,
  fn: () => Promise<T>,
): Promise<T> {
  const started = m.clock.monotonic();
  const under = typeof steps === "string" ? steps : steps[steps.length - 1]!;
  m.stepsInProgress.inc({ step: under });
  try {
    return await fn();
  } finally {
    m.stepsInProgress.dec({ step: under });
    const seconds = (m.clock.monotonic() - started) / 1000;
    if (typeof steps === "string") observeStep(m, steps, network, seconds);
    else for (const step of steps) observeStep(m, step, network, seconds);
  }
}
