// The drain after a SIGTERM: stop accepting connections, answer any new request on a kept-alive connection with 503
// shutting_down, let the requests in flight finish up to the grace period, then report. No "server-only" and no
// config: bin/start/serve-next.ts loads this outside Next. Calls cut off when the grace runs out are what crash recovery
// (payment leases, hold sweeps) already resolves.
import type http from "node:http";
import type { ShutdownFlag } from "./shutdown-state";
import type { Clock } from "../clock";

/** Readiness still answers during the drain (503 "shutting down"), so the load balancer sees why. */
const PASS_THROUGH_WHILE_DRAINING = new Set(["/api/health"]);

export interface DrainTracker {
  /** Wraps the server's handler: counts requests in flight, refuses new ones once draining. */
  handle(
    next: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
  ): (req: http.IncomingMessage, res: http.ServerResponse) => unknown;
  inFlight(): number;
  /** Marks the process as shutting down, closes the listener and waits for the requests in flight, up to `graceMs`. */
  drain(server: http.Server, graceMs: number): Promise<"drained" | "grace_ran_out">;
}

/** A tracker for one server; `shutdown` is the flag the drain marks and readiness reads, `clock` times the grace. */
export function createDrainTracker(shutdown: ShutdownFlag, clock: Clock): DrainTracker {
  let inFlight = 0;
  return {
    handle: (next) => (req, res) => {
      if (shutdown.isShuttingDown() && !PASS_THROUGH_WHILE_DRAINING.has((req.url ?? "").split("?")[0]!)) {
        res.writeHead(503, { "content-type": "application/json", connection: "close", "retry-after": "1" });
        // The body every error has (server/errors/index.ts errorBody), written out: errors.ts is server-only.
        res.end(
          '{"error":{"message":"this instance is shutting down; retry the request","type":"server_error","param":null,"code":"shutting_down"}}',
        );
        return;
      }
      inFlight++;
      res.once("close", () => inFlight--);
      return next(req, res);
    },
    inFlight: () => inFlight,
    drain(server, graceMs) {
      shutdown.markShuttingDown();
      server.close();
      return new Promise((resolve) => {
        const deadline = clock.monotonic() + graceMs;
        const tick = () => {
          // Kept-alive connections with no request in flight would hold the process open: close them as they go idle.
          server.closeIdleConnections();
          if (inFlight === 0) return resolve("drained");
          if (clock.monotonic() >= deadline) {
            server.closeAllConnections();
            return resolve("grace_ran_out");
          }
          setTimeout(tick, 50);
        };
        tick();
      });
    },
  };
}

/**
 * On SIGTERM or SIGINT: drains `server` for up to `graceMs`, runs `close` (Next's own shutdown), then exits 0. A cut-off
 * call is left to crash recovery, which is why the exit is 0 either way.
 */
export function drainOnSignals(
  server: http.Server,
  tracker: DrainTracker,
  graceMs: number,
  close: () => Promise<void> = async () => undefined,
): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.log(`signet: ${signal}: draining ${tracker.inFlight()} request(s) in flight, for up to ${graceMs} ms`);
      void tracker
        .drain(server, graceMs)
        .then((result) =>
          console.log(
            `signet: ${result === "drained" ? "every request finished" : "the grace period ran out"}; exiting`,
          ),
        )
        .then(close)
        .finally(() => process.exit(0));
    });
  }
}
