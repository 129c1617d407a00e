// Fault injection for the chaos suite: when SIGNET_CHAOS_CRASH_AT names a step, the process kills itself
// with SIGKILL the moment the paid flow reaches it, so nothing after that step runs: no catch, no finally, no
// flush. Never armed in production (server/env/index.ts refuses the variable there).
import "server-only";
import type { Config } from "./index";

/**
 * Where a call can be killed: the paid route's settlement steps, the prepaid route's hold, and the shared pipeline's
 * upstream call (`during_inference` fires while the upstream request is in flight; `during_stream` once a stream's
 * first event arrived), capture and answer.
 */
export type CrashStep =
  | "after_verify"
  | "after_settle"
  | "after_credit"
  | "after_hold"
  | "during_inference"
  | "during_stream"
  | "after_debit"
  | "before_response";

/** SIGKILLs this process when `cfg` arms `step` (SIGNET_CHAOS_CRASH_AT). */
export function crashPoint(cfg: Pick<Config, "SIGNET_CHAOS_CRASH_AT">, step: CrashStep): void {
  if (cfg.SIGNET_CHAOS_CRASH_AT === step) process.kill(process.pid, "SIGKILL");
}
