// Whether a process is draining after a SIGTERM: the front server (bin/start/serve-next.ts) marks it; readiness and the
// paid routes read it. No "server-only" and no config here: the front server loads this outside Next.

/** A drain flag: marked once, read by readiness. */
export interface ShutdownFlag {
  /** Marks the process as draining: readiness answers 503 from now on. */
  markShuttingDown(): void;
  /** True once a SIGTERM started the drain. */
  isShuttingDown(): boolean;
}

/** A flag of its own, not shared with any other module instance. */
export function createShutdownFlag(): ShutdownFlag {
  let draining = false;
  return {
    markShuttingDown: () => {
      draining = true;
    },
    isShuttingDown: () => draining,
  };
}
