// The process's Prometheus metrics: one prom-client registry, built on first use and kept on globalThis (Next's route
// bundles and the server modules are separate module instances; they must count into the same registry). Metrics are
// per process: with several instances, Prometheus scrapes each one and sums across them.
import "server-only";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Seconds; from a fast local verify to a slow provider's whole answer. */
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const r = [registry];
  return {
    registry,
    /** route: paid (chat), prepaid (inference), topup; outcome: served, refused (with its error code), upstream_error, aborted. */
    calls: new Counter({ name: "signet_calls_total", help: "Calls by route, network, outcome and (for refusals) error code", labelNames: ["route", "network", "outcome", "code"] as const, registers: r }),
    /** outcome: ok, recovered (landed after a refusal or a crash), failed, unknown (the chain could not say). */
    settlements: new Counter({ name: "signet_settlements_total", help: "x402 settlements by network, purpose and outcome", labelNames: ["network", "purpose", "outcome"] as const, registers: r }),
    paymentRequired: new Counter({ name: "signet_payment_required_total", help: "402 answers by network and reason", labelNames: ["network", "reason"] as const, registers: r }),
    feeLamports: new Counter({ name: "signet_solana_fee_lamports_total", help: "Lamports the Solana fee payer spent on settlements", labelNames: ["network"] as const, registers: r }),
    /** step: verify, settle, upstream_first_byte, total (the served call: upstream request to captured hold). */
    stepSeconds: new Histogram({ name: "signet_step_duration_seconds", help: "Duration of each step of a call", labelNames: ["step", "network"] as const, buckets: STEP_BUCKETS, registers: r }),
    /** reason: rate_limited (429), unavailable (502/503/504), timeout, transport (connection failed). */
    rpcRetries: new Counter({ name: "signet_rpc_retries_total", help: "Chain RPC requests retried, by network and reason", labelNames: ["network", "reason"] as const, registers: r }),
    reconcileDrift: new Gauge({ name: "signet_reconcile_drift", help: "Mismatches the last reconcile found, per network", labelNames: ["network"] as const, registers: r }),
    // Set at scrape time (collect-scrape-gauges.ts).
    ready: new Gauge({ name: "signet_ready", help: "1 when this instance should take traffic (GET /api/health)", registers: r }),
    chainUp: new Gauge({ name: "signet_chain_rpc_up", help: "1 when the chain RPC answered its health probe", labelNames: ["network"] as const, registers: r }),
    feePayerBalance: new Gauge({ name: "signet_fee_payer_balance", help: "The facilitator's gas balance, in SOL or ETH", labelNames: ["network", "unit"] as const, registers: r }),
    ledgerCredits: new Gauge({ name: "signet_ledger_credits_units", help: "Sum of every credit in the ledger, USDC atomic units", labelNames: ["network"] as const, registers: r }),
    ledgerCharges: new Gauge({ name: "signet_ledger_charges_units", help: "Sum of every captured charge, USDC atomic units", labelNames: ["network"] as const, registers: r }),
    openHolds: new Gauge({ name: "signet_open_holds", help: "Credit holds still held", labelNames: ["network"] as const, registers: r }),
    openHoldUnits: new Gauge({ name: "signet_open_hold_units", help: "USDC atomic units in credit holds still held", labelNames: ["network"] as const, registers: r }),
  };
}

export type SignetMetrics = ReturnType<typeof createMetrics>;

const cache = globalThis as unknown as { signetMetrics?: SignetMetrics };

/** The process's metrics. */
export function metrics(): SignetMetrics {
  cache.signetMetrics ??= createMetrics();
  return cache.signetMetrics;
}

/** Runs `fn`, observing its duration under `step`; the observation is made whether it resolves or throws. */
export async function timeStep<T>(step: "verify" | "settle" | "upstream_first_byte" | "total", network: string, fn: () => Promise<T>): Promise<T> {
  const end = metrics().stepSeconds.startTimer({ step, network });
  try {
    return await fn();
  } finally {
    end();
  }
}
