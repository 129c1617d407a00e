// Keeps a dropped PostgreSQL connection (a failover, a restart, pg_terminate_backend) from ending the process. A pg
// Client emits 'error' when its socket dies, whether it is idle in the pool, checked out between two queries of a
// transaction, or running one; an 'error' event nobody listens to is an uncaught exception in Node.
import "server-only";
import type pg from "pg";

/** Where a caught connection error goes (a log line); it must not throw. */
export type ConnectionErrorSink = (err: Error) => void;

/**
 * Gives `client` an 'error' listener for as long as it lives. The client is unusable afterwards (pg marks it not
 * queryable, so its pending and later queries reject), and the code that holds it sees that error on its own query.
 */
export function catchClientErrors(client: pg.Client | pg.PoolClient, sink: ConnectionErrorSink): void {
  client.on("error", (err: Error) => sink(err));
}

/**
 * Gives every client of `pool` an 'error' listener from the moment it connects, so one that dies while checked out
 * (inside an interactive transaction, holding an advisory lock) is logged, not thrown. The pool itself discards it:
 * a client released after its connection broke is destroyed, never handed out again, and one that dies idle is
 * removed and re-emitted on the pool's own 'error' event, which must have a listener too (the client's already logged it).
 */
export function catchPoolErrors(pool: pg.Pool, sink: ConnectionErrorSink): void {
  pool.on("connect", (client: pg.PoolClient) => catchClientErrors(client, sink));
  pool.on("error", () => undefined);
}
