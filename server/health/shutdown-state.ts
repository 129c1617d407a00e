// Whether this process is draining after a SIGTERM. bin/serve-next.ts sets it; readiness and the paid routes read it.
// No "server-only" and no config here: the front server loads this outside Next, and Next's route bundles are another
// module instance, so the flag lives on globalThis under a registered symbol both copies share.

const SHUTTING_DOWN = Symbol.for("signet.shuttingDown");
const state = globalThis as unknown as Record<symbol, boolean | undefined>;

/** Marks the process as draining: readiness answers 503 from now on. */
export function markShuttingDown(): void {
  state[SHUTTING_DOWN] = true;
}

/** True once a SIGTERM started the drain. */
export function isShuttingDown(): boolean {
  return state[SHUTTING_DOWN] === true;
}

/** Clears the flag. Tests only. */
export function resetShutdownForTests(): void {
  state[SHUTTING_DOWN] = undefined;
}
