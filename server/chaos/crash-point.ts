// Fault injection for the chaos suite (issue #7): when SIGNET_CHAOS_CRASH_AT names a step, the process kills itself
// with SIGKILL the moment the paid flow reaches it, so nothing after that step runs: no catch, no finally, no
// flush. Never armed in production (server/env.ts refuses the variable there).
import { config } from "../env";

export type CrashStep = "after_verify" | "after_settle" | "after_credit" | "during_inference" | "after_debit" | "before_response";

export function crashPoint(step: CrashStep): void {
  if (config().SIGNET_CHAOS_CRASH_AT === step) process.kill(process.pid, "SIGKILL");
}
