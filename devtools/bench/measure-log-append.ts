// What the receipt log adds to a served call, measured on the real statements (`npm run bench:log`):
// - "unlogged": the call's end as it was before the log: capture the hold (one autocommit statement), sign the
//   receipt, store it with a plain UPDATE (a second autocommit statement);
// - "logged": the same, with the receipt's statement also staging its log entry; with the sequencer publishing
//   checkpoints every second meanwhile, as every instance runs it. (A served call now stores and stages its receipt in
//   its capture's own statement; the staging insert measured here is the same one.)
// Both run interleaved in rounds at the same concurrency on one fresh database, so drift of the machine hits both.
// Also the two ways of numbering entries in the appending statement itself: a staging insert (what ships) against a
// single counter row bumped in the statement (gap-free, but one lock every append on every instance waits for).
import { randomUUID } from "node:crypto";
import pg from "pg";
import { Prisma, type PrismaClient } from "../../server/db";
import { catchPoolErrors } from "../../server/db/catch-connection-errors";
import { hotExecute } from "../../server/db/hot-query";
import { attachReceipt } from "../../server/ledger/attach-receipt";
import { creditAgent } from "../../server/ledger/credit-agent";
import { captureHold, reserveCredit } from "../../server/ledger/credit-holds";
import { generateKeypair } from "../../server/keys/parse-secret-key";
import { buildReceipt } from "../../server/receipts/build-receipt";
import { signReceipt } from "../../server/receipts/sign-receipt";
import { createLogger } from "../../server/log";
import { publishLog } from "../../server/transparency/publish-log";
import type { LogIdentity } from "../../server/keys/log-key";
import { percentile } from "./percentile";

const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const operator = generateKeypair();

export interface LatencyFigures {
  p50Ms: number;
  p90Ms: number;
  calls: number;
}

function figures(samples: number[]): LatencyFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p90Ms: percentile(sorted, 90), calls: sorted.length };
}

function receiptFor(agent: string, holdId: string, points: number) {
  return signReceipt(
    buildReceipt({
      agentPubkey: agent,
      upstream: "local",
      model: "local/echo-1",
      costUnits: 100n,
      prompt: { messages: [{ role: "user", content: "bench" }] },
      responseText: "answer",
      timestampMs: Date.now(),
      inferenceId: holdId,
      pointsTotal: points,
    }),
    operator,
  );
}

/** Holds ready to capture: one agent per lane, so lanes never wait on each other's balance row (as distinct agents). */
async function reserveHolds(
  db: PrismaClient,
  lanes: number,
  perLane: number,
): Promise<{ agent: string; holds: string[] }[]> {
  return Promise.all(
    Array.from({ length: lanes }, async () => {
      const agent = generateKeypair().publicKeyBase58;
      await creditAgent(db, {
        kind: "test_credit",
        agentPubkey: agent,
        network: NETWORK,
        units: 1_000n * BigInt(perLane),
      });
      const holds: string[] = [];
      for (let i = 0; i < perLane; i++) {
        const r = await reserveCredit(db, agent, NETWORK, 1_000n, 600_000);
        if (!r.ok) throw new Error("bench: reserve refused");
        holds.push(r.holdId);
      }
      return { agent, holds };
    }),
  );
}

const captureFacts = (agentPubkey: string, holdId: string) => ({
  holdId,
  agentPubkey,
  costUnits: 100n,
  model: "local/echo-1",
  upstream: "local",
  latencyMs: 1,
  outcome: "served" as const,
});

async function unlogged(db: PrismaClient, agent: string, holdId: string): Promise<void> {
  const captured = await captureHold(db, captureFacts(agent, holdId), createLogger("warn"));
  if (!captured.ok) throw new Error("bench: capture refused");
  const receipt = receiptFor(agent, holdId, captured.pointsTotal);
  await hotExecute(
    db,
    Prisma.sql`UPDATE inference_logs SET receipt = ${JSON.stringify(receipt)}::jsonb WHERE id = ${holdId}::uuid`,
  );
}

async function logged(db: PrismaClient, agent: string, holdId: string): Promise<void> {
  const captured = await captureHold(db, captureFacts(agent, holdId), createLogger("warn"));
  if (!captured.ok) throw new Error("bench: capture refused");
  await attachReceipt(db, holdId, receiptFor(agent, holdId, captured.pointsTotal));
}

export interface LogAppendBench {
  concurrency: number;
  unlogged: LatencyFigures;
  logged: LatencyFigures;
  /** logged p50 − unlogged p50, ms: what logging adds to a call's p50. */
  addedP50Ms: number;
  checkpoints: number;
}

/** Times the call's end with and without the log at `concurrency`, `rounds` interleaved rounds of `perRound` calls per lane each. */
export async function measureLogAppend(
  db: PrismaClient,
  identity: LogIdentity,
  concurrency: number,
  rounds: number,
  perRound: number,
): Promise<LogAppendBench> {
  const samples = { unlogged: [] as number[], logged: [] as number[] };
  let checkpoints = 0;
  let publishing = true;
  const publisher = (async () => {
    while (publishing) {
      if (await publishLog(db, identity, createLogger("warn"))) checkpoints++;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  try {
    for (let round = 0; round < rounds; round++) {
      const order = ["unlogged", "logged"] as const;
      for (const variant of round % 2 === 0 ? order : [...order].reverse()) {
        const lanes = await reserveHolds(db, concurrency, perRound);
        await Promise.all(
          lanes.map(async ({ agent, holds }) => {
            for (const holdId of holds) {
              const started = performance.now();
              await (variant === "logged" ? logged : unlogged)(db, agent, holdId);
              // The first round warms both paths (prepared statements, key objects): not timed.
              if (round > 0) samples[variant].push(performance.now() - started);
            }
          }),
        );
      }
    }
  } finally {
    publishing = false;
    await publisher;
  }
  const u = figures(samples.unlogged);
  const l = figures(samples.logged);
  return { concurrency, unlogged: u, logged: l, addedP50Ms: l.p50Ms - u.p50Ms, checkpoints };
}

export interface AppendStatementBench {
  concurrency: number;
  staging: LatencyFigures & { perS: number };
  counter: LatencyFigures & { perS: number };
}

/** The numbering alternatives alone, in a scratch schema: a staging insert against a counter row bumped in the statement. */
export async function measureAppendStatements(
  url: string,
  concurrency: number,
  perLane: number,
): Promise<AppendStatementBench> {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  catchPoolErrors(pool, () => undefined);
  try {
    await pool.query(`DROP TABLE IF EXISTS bench_log_head, bench_log_entries, bench_log_staging;
      CREATE TABLE bench_log_head (id int PRIMARY KEY, size bigint NOT NULL); INSERT INTO bench_log_head VALUES (1, 0);
      CREATE TABLE bench_log_entries (idx bigint PRIMARY KEY, inference_id uuid NOT NULL, entry bytea NOT NULL);
      CREATE TABLE bench_log_staging (seq bigserial PRIMARY KEY, inference_id uuid NOT NULL, entry bytea NOT NULL)`);
    const entry = Buffer.alloc(600, 7);
    const statements = {
      staging: "INSERT INTO bench_log_staging (inference_id, entry) VALUES ($1, $2)",
      counter:
        "WITH h AS (UPDATE bench_log_head SET size = size + 1 WHERE id = 1 RETURNING size - 1 AS idx) INSERT INTO bench_log_entries SELECT h.idx, $1, $2 FROM h",
    };
    const run = async (name: keyof typeof statements) => {
      const lat: number[] = [];
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = 0; i < perLane; i++) {
            const t = performance.now();
            await pool.query({ name: `bench_log_${name}`, text: statements[name], values: [randomUUID(), entry] });
            lat.push(performance.now() - t);
          }
        }),
      );
      return { ...figures(lat), perS: lat.length / ((performance.now() - started) / 1000) };
    };
    await run("staging");
    await run("counter");
    const staging = await run("staging");
    const counter = await run("counter");
    return { concurrency, staging, counter };
  } finally {
    await pool
      .query("DROP TABLE IF EXISTS bench_log_head, bench_log_entries, bench_log_staging")
      .catch(() => undefined);
    await pool.end();
  }
}
