// The jobs a serving process runs beside its requests: the outbox of call records waiting for the database, the
// pending-settlement sweeper, the receipt log's sequencer, the EVM relay sweeper and the expired-hold sweeper. Every instance runs them (each job takes its own lock or claims
// each row once). Started only by an entry point (the route edge, a test), never by building a runtime.
import "server-only";
import { releaseExpiredHolds } from "../ledger/credit-holds";
import { startPendingSweeper } from "../payments/pending-settlement";
import { RELAY_SWEEP_EVERY_MS } from "../facilitator/evm-relay-ledger";
import { startLogPublisher } from "../transparency/publish-log";
import type { EvmFacilitator } from "../facilitator/create-evm-facilitator";
import type { Runtime } from "../context/runtime";

/** Starts the runtime's background jobs; returns the function that stops them all. */
export function startBackgroundJobs(runtime: Runtime): () => void {
  const stops = [
    drainRecordOutbox(runtime),
    sweepExpiredHolds(runtime),
    // Settlements broadcast but not confirmed in time, which nobody retries.
    startPendingSweeper(runtime),
    // The receipt log's sequencer and checkpoint signer: one instance at a time holds its lock.
    startLogPublisher(runtime.db, runtime.keys, runtime.config.LOG_PUBLISH_INTERVAL_MS, runtime.log),
  ];
  // Relays a node dropped or never saw: broadcast again (each one claimed by one sweeper a round).
  const evm = runtime.chains.facilitator.evm;
  if (evm) stops.push(startRelaySweeper(runtime, evm));
  return () => {
    for (const stop of stops) stop();
  };
}

/** Broadcasts unmined EVM relays again every RELAY_SWEEP_EVERY_MS until stopped; one round at a time. */
function startRelaySweeper(runtime: Runtime, evm: EvmFacilitator): () => void {
  let running = false;
  const sweep = () => {
    if (running) return;
    running = true;
    evm
      .sweepRelays()
      .catch((err: unknown) =>
        runtime.log.warn(
          { detail: String((err as Error)?.message ?? err).slice(0, 200) },
          "could not sweep EVM relays",
        ),
      )
      .finally(() => {
        running = false;
      });
  };
  sweep();
  const timer = setInterval(sweep, RELAY_SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * How often the outbox of call records is tried while it holds any: a record is written within this much of the
 * database answering again, well before a payer's retry (Retry-After: 1) asks for it.
 */
const RECORD_OUTBOX_EVERY_MS = 200;

/** Tries the records waiting in the runtime's outbox every RECORD_OUTBOX_EVERY_MS, one round at a time, until stopped. */
function drainRecordOutbox(runtime: Runtime): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running || runtime.state.records.size === 0) return;
    running = true;
    runtime.state.records
      .drain()
      .catch((err: unknown) => runtime.log.warn({ err }, "could not drain the record outbox"))
      .finally(() => {
        running = false;
      });
  }, RECORD_OUTBOX_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Releases prepaid holds whose server died mid-call, every half lease, until stopped; each by exactly one statement. */
function sweepExpiredHolds(runtime: Runtime): () => void {
  const sweep = () => {
    releaseExpiredHolds(runtime.db, runtime.log).catch((err: unknown) =>
      runtime.log.warn({ err }, "could not release expired holds"),
    );
  };
  sweep();
  const timer = setInterval(sweep, Math.max(1_000, Math.floor(runtime.config.PAYMENT_LEASE_MS / 2)));
  timer.unref();
  return () => clearInterval(timer);
}
