// The goals of `npm run bench` and the raw figures behind them: one table, read by the bench's printout and
// by docs/performance.md's generated results table. Every goal is a ratio to a floor or a peer measured in the same run,
// because absolute figures swing by 2× between the shared machines this runs on.

/** The keys bench/results.json carries each goal's ratio under. */
export type GoalKey =
  | "paid_ratio_vs_stock"
  | "overhead_p50_ratio"
  | "overhead_samples"
  | "prepaid_ratio_vs_db_floor"
  | "verify_ratio_vs_native"
  | "hosted_ratio_vs_offline"
  | "realistic_throughput_ratio";

export interface Goal {
  key: GoalKey;
  /** What is measured, with its backend. */
  figure: string;
  /** At least (≥) or at most (≤) the target. */
  direction: "at_least" | "at_most";
  target: number;
}

export const GOALS: readonly Goal[] = [
  {
    key: "paid_ratio_vs_stock",
    figure: "paid calls/s ÷ stock x402 paid calls/s, the lower of c=8 and c=32 (PostgreSQL, instant chain)",
    direction: "at_least",
    target: 1.0,
  },
  {
    key: "overhead_p50_ratio",
    figure: "server overhead per paid call, p50 ÷ the stock call's p50 (sequential, instant chain)",
    direction: "at_most",
    target: 0.25,
  },
  {
    key: "overhead_samples",
    figure: "paid calls the overhead p50 and p99 are taken over",
    direction: "at_least",
    target: 1000,
  },
  {
    key: "prepaid_ratio_vs_db_floor",
    figure: "prepaid calls/s ÷ the DB floor (single-row UPDATE commits/s), both c=16 (PostgreSQL)",
    direction: "at_least",
    target: 0.25,
  },
  {
    key: "verify_ratio_vs_native",
    figure: "offline receipt verifications/s (node:crypto) ÷ bare node:crypto Ed25519 verifies/s, same message",
    direction: "at_least",
    target: 0.75,
  },
  {
    key: "hosted_ratio_vs_offline",
    figure: "hosted verifier requests/s, c=16 (node:crypto) ÷ offline verifications/s (node:crypto)",
    direction: "at_least",
    target: 0.15,
  },
  {
    key: "realistic_throughput_ratio",
    figure: "paid calls/s at c=256, real chain timing (400 ms slots) ÷ (256 ÷ unloaded p50 latency in s)",
    direction: "at_least",
    target: 0.8,
  },
];

/** True when `value` meets `goal`. */
export function goalMet(goal: Goal, value: number): boolean {
  return goal.direction === "at_least" ? value >= goal.target : value <= goal.target;
}

/** The goal as people read it: "≥ 1" or "≤ 0.25". */
export function goalText(goal: Goal): string {
  return `${goal.direction === "at_least" ? "≥" : "≤"} ${goal.target.toLocaleString("en-US")}`;
}

/** The raw figures a run records, besides the ratios: key → label (with its backend). */
export const FIGURES: readonly { key: string; label: string }[] = [
  { key: "paid_calls_per_s_c8", label: "Signet paid calls/s, c=8 (PostgreSQL, instant chain)" },
  { key: "stock_paid_calls_per_s_c8", label: "stock x402 paid calls/s, c=8 (no DB, instant chain)" },
  { key: "paid_ratio_vs_stock_c8", label: "paid ratio vs stock, c=8" },
  { key: "paid_calls_per_s_c32", label: "Signet paid calls/s, c=32 (PostgreSQL, instant chain)" },
  { key: "stock_paid_calls_per_s_c32", label: "stock x402 paid calls/s, c=32 (no DB, instant chain)" },
  { key: "paid_ratio_vs_stock_c32", label: "paid ratio vs stock, c=32" },
  {
    key: "paid_cpu_ms_per_call_c32",
    label: "bench process CPU per Signet paid call, ms, c=32 (service and client; the chain runs in its own process)",
  },
  {
    key: "stock_cpu_ms_per_call_c32",
    label:
      "bench process CPU per stock x402 paid call, ms, c=32 (service and client; the chain runs in its own process)",
  },
  {
    key: "paid_db_cpu_ms_per_call_c32",
    label: "PostgreSQL server CPU per Signet paid call, ms, c=32 (the local server's processes)",
  },
  { key: "overhead_p50_ms", label: "Signet server overhead per paid call, p50, ms (sequential)" },
  { key: "overhead_p99_ms", label: "Signet server overhead per paid call, p99, ms (sequential)" },
  { key: "signet_call_p50_ms", label: "Signet paid call, whole, p50, ms (sequential)" },
  { key: "stock_call_p50_ms", label: "stock x402 paid call, whole, p50, ms (sequential)" },
  { key: "stock_call_p99_ms", label: "stock x402 paid call, whole, p99, ms (sequential)" },
  { key: "prepaid_calls_per_s", label: "prepaid calls/s, c=16 (PostgreSQL)" },
  { key: "prepaid_cpu_ms_per_call", label: "bench process CPU per prepaid call, ms, c=16" },
  { key: "prepaid_cpu_cores", label: "bench process CPU during the prepaid run, cores busy (of the machine's)" },
  {
    key: "prepaid_db_cpu_ms_per_call",
    label: "PostgreSQL server CPU per prepaid call, ms, c=16 (the local server's processes)",
  },
  {
    key: "prepaid_machine_cpu_ms_per_call",
    label: "machine CPU per prepaid call, ms (bench process + PostgreSQL server)",
  },
  { key: "db_floor_commits_per_s", label: "DB floor: single-row UPDATE commits/s, c=16 (PostgreSQL)" },
  {
    key: "db_floor_client_cpu_ms_per_commit",
    label: "DB floor: client CPU per commit, ms (node-postgres, this process)",
  },
  { key: "db_floor_db_cpu_ms_per_commit", label: "DB floor: PostgreSQL server CPU per commit, ms" },
  { key: "db_floor_machine_cpu_ms_per_commit", label: "DB floor: machine CPU per commit, ms (client + server)" },
  {
    key: "prepaid_ratio_cpu_bound",
    label: "prepaid ÷ floor that the machine's CPU allows: floor machine CPU per commit ÷ prepaid machine CPU per call",
  },
  { key: "verify_per_s", label: "offline receipt verifications/s, one core (node:crypto)" },
  { key: "native_ed25519_verify_per_s", label: "bare Ed25519 verifies/s, same message, one core (node:crypto)" },
  { key: "noble_verify_per_s", label: "offline receipt verifications/s, one core (noble, the browser's path)" },
  {
    key: "hosted_verify_per_s",
    label: "hosted verifier requests/s, c=16 (node:crypto, chain check via the local RPC)",
  },
  {
    key: "hosted_cpu_ms_per_call",
    label:
      "bench process CPU per hosted verification, ms (verifier, route and RPC client; the RPC server runs in its own process)",
  },
  {
    key: "chain_lookup_cpu_ms_per_call",
    label: "bench process CPU per bare getTransaction round trip to that RPC, ms, c=16 (the client)",
  },
  { key: "offline_verify_cpu_ms", label: "one offline verification, ms (1 ÷ its rate)" },
  { key: "realistic_concurrency", label: "concurrency of the real-timing run (the goal's 256 unless a trial)" },
  {
    key: "realistic_paid_calls_per_s",
    label: "Signet paid calls/s at that concurrency (PostgreSQL, real chain timing)",
  },
  { key: "realistic_unloaded_p50_ms", label: "Signet paid call, p50, ms, sequential (real chain timing)" },
  { key: "realistic_loaded_p50_ms", label: "Signet paid call, p50, ms, at that concurrency (real chain timing)" },
  {
    key: "realistic_cpu_ms_per_call",
    label:
      "bench process CPU per paid call at that concurrency, ms (service and client; the chain runs in its own process)",
  },
  { key: "realistic_cpu_cores", label: "bench process CPU during that run, cores busy (of the machine's)" },
  { key: "realistic_db_cpu_ms_per_call", label: "PostgreSQL server CPU per paid call at that concurrency, ms" },
  {
    key: "realistic_cpu_bound_calls_per_s",
    label: "paid calls/s the machine's cores allow at that CPU per call (bench process + PostgreSQL)",
  },
  {
    key: "realistic_ratio_cpu_bound",
    label: "the realistic ratio those cores allow: CPU-bound calls/s ÷ (concurrency ÷ unloaded p50 in s)",
  },
];
