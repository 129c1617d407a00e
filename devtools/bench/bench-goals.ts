// The goals of `npm run bench` and the raw figures behind them: one table, read by the bench's printout and
// by docs/performance.md's generated results table. Every goal is a ratio to a floor or a peer measured in the same run,
// because absolute figures swing by 2× between the shared machines this runs on.

/** The keys bench/results.json carries each goal's ratio under. */
export type GoalKey =
  | "service_cpu_ratio_vs_stock"
  | "realistic_no_queue"
  | "prepaid_machine_cpu_ms_per_call"
  | "overhead_p50_vs_commit_bound"
  | "overhead_samples"
  | "verify_ratio_vs_native"
  | "hosted_ratio_vs_offline";

export interface Goal {
  key: GoalKey;
  /** What is measured, with its backend. */
  figure: string;
  /** At least (≥) or at most (≤) the target. */
  direction: "at_least" | "at_most";
  target: number;
}

/** The share of the ideal (or of the machine's cores) the real-timing run must reach to show no queue of ours. */
export const REALISTIC_SHARE = 0.9;

export const GOALS: readonly Goal[] = [
  {
    key: "service_cpu_ratio_vs_stock",
    figure:
      "service CPU per paid call (Signet: its process and PostgreSQL's) ÷ the stock x402 server's, the higher of c=8 and c=32; each run's client-only CPU taken out",
    direction: "at_most",
    target: 1,
  },
  {
    key: "realistic_no_queue",
    figure: `real chain timing (400 ms slots), c=256: the larger of paid calls/s ÷ (256 ÷ unloaded p50 in s) and the machine's busy share of its cores, ÷ ${REALISTIC_SHARE}`,
    direction: "at_least",
    target: 1,
  },
  {
    key: "prepaid_machine_cpu_ms_per_call",
    figure: "machine CPU per prepaid call, ms, c=16 (this process and the PostgreSQL server)",
    direction: "at_most",
    target: 0.85,
  },
  {
    key: "overhead_p50_vs_commit_bound",
    figure:
      "server overhead per paid call, p50 ÷ (3 × a durable commit's p50 + 0.5 ms), both sequential on the same database",
    direction: "at_most",
    target: 1,
  },
  {
    key: "overhead_samples",
    figure: "paid calls the overhead p50 and p99 are taken over",
    direction: "at_least",
    target: 1000,
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
  {
    key: "paid_service_cpu_ms_per_call_c8",
    label: "Signet service CPU per paid call, ms, c=8 (its process less the client's, plus PostgreSQL's)",
  },
  {
    key: "stock_service_cpu_ms_per_call_c8",
    label: "stock x402 service CPU per paid call, ms, c=8 (its process less the client's)",
  },
  { key: "service_cpu_ratio_vs_stock_c8", label: "service CPU ratio vs stock, c=8" },
  {
    key: "paid_service_cpu_ms_per_call_c32",
    label: "Signet service CPU per paid call, ms, c=32 (its process less the client's, plus PostgreSQL's)",
  },
  {
    key: "stock_service_cpu_ms_per_call_c32",
    label: "stock x402 service CPU per paid call, ms, c=32 (its process less the client's)",
  },
  { key: "service_cpu_ratio_vs_stock_c32", label: "service CPU ratio vs stock, c=32" },
  {
    key: "client_cpu_ms_per_call_c32",
    label: "client-only CPU per call in a timed run, ms, c=32 (Signet's requests; a handler that does nothing)",
  },
  {
    key: "stock_client_cpu_ms_per_call_c32",
    label: "client-only CPU per call in a timed run, ms, c=32 (the stock requests)",
  },
  {
    key: "payload_cpu_ms",
    label: "client CPU to build one payment (stock @x402/svm client), ms, Signet's challenge (outside every timed run)",
  },
  {
    key: "stock_payload_cpu_ms",
    label: "client CPU to build one payment, ms, the stock server's challenge (outside every timed run)",
  },
  { key: "realistic_throughput_ratio", label: "paid calls/s at c=256, real chain timing ÷ (256 ÷ unloaded p50 in s)" },
  {
    key: "realistic_machine_busy",
    label: "the machine's busy share of its cores during that run (all processes: service, chain, PostgreSQL)",
  },
  { key: "commit_p50_ms", label: "a durable single-row commit, p50, ms (sequential, same database)" },
  { key: "overhead_bound_ms", label: "the overhead's bound: 3 × that commit p50 + 0.5 ms" },
  { key: "overhead_p50_ratio", label: "server overhead p50 ÷ the stock call's p50 (sequential, instant chain)" },
  {
    key: "prepaid_ratio_vs_db_floor",
    label: "prepaid calls/s ÷ the DB floor (single-row UPDATE commits/s), both c=16",
  },
  {
    key: "paid_ratio_vs_stock",
    label: "paid calls/s ÷ stock x402 paid calls/s, the lower of c=8 and c=32 (instant chain)",
  },
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
  { key: "realistic_concurrency", label: "concurrency of the real-timing runs (the goal names 256 unless a trial)" },
  {
    key: "realistic_one_instance_calls_per_s",
    label: "Signet paid calls/s at that concurrency, one instance in the bench's process (real chain timing)",
  },
  {
    key: "realistic_one_instance_machine_busy",
    label: "the machine's busy share of its cores during that one-instance run",
  },
  { key: "realistic_instances", label: "instances of the real-timing run the goal reads (one per core)" },
  {
    key: "realistic_paid_calls_per_s",
    label: "Signet paid calls/s at that concurrency over HTTP, one instance per core (PostgreSQL, real chain timing)",
  },
  { key: "realistic_unloaded_p50_ms", label: "Signet paid call, p50, ms, sequential, over HTTP (real chain timing)" },
  { key: "realistic_loaded_p50_ms", label: "Signet paid call, p50, ms, at that concurrency (real chain timing)" },
  {
    key: "realistic_machine_cpu_ms_per_call",
    label: "machine CPU per paid call in that run, ms (instances, chain, PostgreSQL and client)",
  },
  {
    key: "realistic_ratio_cpu_bound",
    label:
      "the realistic ratio the machine's cores allow at that CPU per call: its calls/s ÷ (256 ÷ unloaded p50 in s)",
  },
];
