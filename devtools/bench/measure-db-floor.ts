// The database floor of `npm run bench`: what this PostgreSQL commits per second at a given concurrency when each
// transaction is one single-row UPDATE and nothing else. `concurrency` connections (node-postgres, one client each,
// no pool), each updating its own row with a prepared `UPDATE bench_db_floor SET n = n + 1 WHERE id = $1` in
// autocommit, back to back, so every statement is its own transaction and its own WAL flush (the server's own
// synchronous_commit and fsync settings apply, as they do to the service). Prepaid calls are measured against it. The
// same statement one at a time on one connection gives a durable commit's latency, which bounds the paid overhead.
import pg from "pg";
import { catchClientErrors } from "../../server/db/catch-connection-errors";
import { readDatabaseCpuMs } from "./database-cpu";

export interface DbFloor {
  commitsPerS: number;
  commits: number;
  /** The local PostgreSQL server's CPU over the timed loop, ms (read while its backends still live); null: not visible. */
  dbCpuMs: number | null;
  /** This process's CPU (the clients') over the timed loop, ms. */
  clientCpuMs: number;
}

/** Measures single-row UPDATE commits/s on `url` for `durationMs` after a short warm-up; drops its table afterwards. */
export async function measureDbFloor(url: string, concurrency: number, durationMs: number): Promise<DbFloor> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const clients = Array.from({ length: concurrency }, () => new pg.Client({ connectionString: url }));
  // A dropped connection fails the measurement's own query, never the process.
  for (const c of [admin, ...clients]) catchClientErrors(c, () => undefined);
  try {
    await admin.query("DROP TABLE IF EXISTS bench_db_floor");
    await admin.query("CREATE TABLE bench_db_floor (id integer PRIMARY KEY, n bigint NOT NULL)");
    await admin.query("INSERT INTO bench_db_floor (id, n) SELECT g, 0 FROM generate_series(1, $1) AS g", [concurrency]);
    await Promise.all(clients.map((c) => c.connect()));
    const update = (client: pg.Client, id: number) =>
      client.query({
        name: "bench_db_floor_update",
        text: "UPDATE bench_db_floor SET n = n + 1 WHERE id = $1",
        values: [id],
      });
    for (let i = 0; i < 20; i++) await Promise.all(clients.map((c, k) => update(c, k + 1)));
    let commits = 0;
    const dbBefore = readDatabaseCpuMs();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const until = started + durationMs;
    await Promise.all(
      clients.map(async (client, k) => {
        while (performance.now() < until) {
          await update(client, k + 1);
          commits++;
        }
      }),
    );
    const commitsPerS = commits / ((performance.now() - started) / 1000);
    const cpu = process.cpuUsage(cpuBefore);
    const dbAfter = readDatabaseCpuMs();
    await admin.query("DROP TABLE bench_db_floor");
    return {
      commitsPerS,
      commits,
      dbCpuMs: dbBefore !== null && dbAfter !== null ? dbAfter - dbBefore : null,
      clientCpuMs: (cpu.user + cpu.system) / 1000,
    };
  } finally {
    await Promise.allSettled(clients.map((c) => c.end()));
    await admin.end();
  }
}

/**
 * The latency of one durable commit on `url`: `count` single-row UPDATEs in autocommit on one connection, one after
 * another (a prepared statement, each its own transaction and WAL flush); returns each one's round trip, ms.
 */
export async function measureCommitLatencies(url: string, count: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  catchClientErrors(client, () => undefined);
  await client.connect();
  try {
    await client.query("DROP TABLE IF EXISTS bench_commit_latency");
    await client.query("CREATE TABLE bench_commit_latency (id integer PRIMARY KEY, n bigint NOT NULL)");
    await client.query("INSERT INTO bench_commit_latency (id, n) VALUES (1, 0)");
    const update = () =>
      client.query({ name: "bench_commit_latency", text: "UPDATE bench_commit_latency SET n = n + 1 WHERE id = 1" });
    for (let i = 0; i < 50; i++) await update();
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await update();
      latencies.push(performance.now() - t);
    }
    await client.query("DROP TABLE bench_commit_latency");
    return latencies;
  } finally {
    await client.end();
  }
}
