// An upgrade keeps every row and resumes every pending payment. A PostgreSQL database is built with the last release's
// migration set and filled as that release left it (previous-release-data.ts: every payment state it allowed, pending
// settlements real on the local chain, credits, holds in each status, receipts logged and staged, grants, settings and
// their audits). It is then upgraded by apply-migrations.ts, the path start-up takes (two instances at once, then again),
// and served by today's runtime:
// - every old row is intact, column by column, and this release's changes to old rows are exactly the documented ones;
// - the last release's instances cannot serve beside it (so this release is no rolling upgrade: stop them first);
// - the books balance (reconcile's money checks), and only holds of servers that died are open;
// - the sweeper and the clients' retries move every pending payment to where today's rules take it: served once (its
//   receipt verifying, its transfer charged once) or expired, none left in between; reconcile then finds nothing, and
//   the log extends the last release's checkpoint, proving every receipt, old and new.
import { isDeepStrictEqual } from "node:util";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as proofRoute } from "@/app/api/v1/receipts/[id]/proof/route";
import { GET as checkpointRoute } from "@/app/log/checkpoint/route";
import { GET as checkpointOfSizeRoute } from "@/app/log/checkpoints/[size]/route";
import { GET as tileRoute } from "@/app/log/tile/[...path]/route";
import { applyMigrations, readMigrations, type SqlRunner } from "../../db/apply-migrations";
import { openPostgres } from "../../db";
import { createFacilitator, type Facilitator } from "../../facilitator/create-facilitator";
import { transitionPairs } from "../../ledger/payment-states";
import { readKeptAnswer } from "../../pipeline/kept-answer";
import { checkMoney } from "../../reconcile/money-checks";
import { reconcile } from "../../reconcile/reconcile";
import type { Receipt } from "../../receipts/receipt-types";
import { routeRuntime } from "../../runtime/route-edge";
import { publishLog } from "../../transparency/publish-log";
import {
  openCheckpoint,
  proveConsistency,
  tileHashReader,
  tilePath,
  verifyConsistency,
  verifyReceipt,
  verifyReceiptInclusion,
  type ReceiptLogProof,
} from "../../verify";
import { logIdentity, operatorKeypair, setEnv, testConfig } from "../support/env";
import { until } from "../support/land-directly";
import { startPaidStack, type PaidStack } from "../support/paid-stack";
import { readAnswer } from "../support/route-calls";
import {
  createDatabaseMigratedTo,
  OLD_PAYMENTS,
  PRICE_UNITS,
  TOP_UP_UNITS,
  topUp,
  withClient,
  writePreviousRelease,
  type OldCase,
  type PreviousRelease,
} from "./previous-release-data";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

/** The last release's migration set: every migration up to and including this one. Later ones are this release's. */
const PREVIOUS_RELEASE_LAST_MIGRATION = "20261126130000_payment_states";

/** What one of this release's migrations does to the last release's rows. */
interface MigrationEffect {
  /** New columns (`table.column`), and the value each old row gets (a function: of the old row). */
  newColumns: Record<string, unknown>;
  /** Old columns whose values are rewritten in place: what an old value becomes. */
  rewritten?: Record<string, (old: unknown) => unknown>;
  /** Columns of a new type: the type, how a value of it reads, and what an old value becomes. */
  retyped: Record<string, { type: string; read(value: unknown): unknown; from(old: unknown): unknown }>;
  /** Payment moves (payment_transitions) dropped and added. */
  transitions: { removed: [string, string][]; added: [string, string][] };
}

/**
 * What each of this release's migrations does to the last release's rows. A migration added to this release must say
 * here what it does to them: until it does, the migrations named here and those on disk differ and the test fails.
 */
const THIS_RELEASE: Record<string, MigrationEffect> = {
  "20261128120000_any_content_answers": {
    // `attempt` names the request holding a payment: an old row has none.
    newColumns: { "payments.attempt": null },
    // A kept answer becomes the JSON text of an envelope of the old body and no x402 receipt.
    retyped: {
      "payments.answer": {
        type: "text",
        read: (v) => (v === null ? null : JSON.parse(v as string)),
        from: (old) => (old === null ? null : { body: old, x402_receipt: null }),
      },
    },
    // A captured call is never undone, and an unserved one is served only through `serving`; refunded is new.
    transitions: {
      removed: [
        ["unserved", "served"],
        ["served", "unserved"],
      ],
      added: [
        ["settled", "refunded"],
        ["serving", "refunded"],
      ],
    },
  },
  "20261128140000_payment_route": {
    // The route a payment was made on gets its own column: the last release's top-ups were made on the top-up route,
    // and its paid calls are filed under chat (their request digests still name their own route).
    newColumns: { "payments.route": (old: Record<string, unknown>) => (old.purpose === "topup" ? "topup" : "chat") },
    // The purpose becomes what the payment buys: a paid call's `chat` is `call`.
    rewritten: { "payments.purpose": (old) => (old === "topup" ? "topup" : "call") },
    retyped: {},
    transitions: { removed: [], added: [] },
  },
  "20261129120000_ip_count_shards": {
    // A function only: an address's count may be spread over rows keyed by its hash and a shard, and the old rows are
    // its shard 0.
    newColumns: {},
    retyped: {},
    transitions: { removed: [], added: [] },
  },
};
const EFFECTS = Object.values(THIS_RELEASE);
const NEW_COLUMNS: MigrationEffect["newColumns"] = Object.assign({}, ...EFFECTS.map((m) => m.newColumns));
const RETYPED: MigrationEffect["retyped"] = Object.assign({}, ...EFFECTS.map((m) => m.retyped));
const REWRITTEN: NonNullable<MigrationEffect["rewritten"]> = Object.assign(
  {},
  ...EFFECTS.map((m) => m.rewritten ?? {}),
);
/** The value an old row gets in a new column. */
const newValueOf = (name: string, old: Record<string, unknown>): unknown => {
  const value = NEW_COLUMNS[name];
  return typeof value === "function" ? (value as (old: Record<string, unknown>) => unknown)(old) : value;
};

/** Where each old payment ends under today's rules, and what its client's retry with the same header gets. */
const RESUMED: Record<OldCase, { answer: "served" | "replayed" | "expired"; status: "served" | "expired" }> = {
  served: { answer: "replayed", status: "served" },
  topup_served: { answer: "replayed", status: "served" },
  pending_landed: { answer: "served", status: "served" },
  pending_dropped: { answer: "served", status: "served" },
  pending_expired: { answer: "expired", status: "expired" },
  topup_pending_landed: { answer: "replayed", status: "served" },
  claimed_landed: { answer: "served", status: "served" },
  claimed_unsent: { answer: "served", status: "served" },
  settled: { answer: "served", status: "served" },
  serving: { answer: "served", status: "served" },
  unserved: { answer: "served", status: "served" },
  failed: { answer: "served", status: "served" },
  expired: { answer: "expired", status: "expired" },
};
const CASES = Object.keys(OLD_PAYMENTS) as OldCase[];
const AGENT_FUNDS = 1_000_000n;

const runnerOf = (c: pg.Client): SqlRunner => ({
  exec: async (sql) => void (await c.query(sql)),
  query: async <T>(sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows as T[],
});

/** Every table's columns (with their types) and rows, each row by its primary key. */
interface Snapshot {
  columns: Record<string, Record<string, string>>;
  rows: Record<string, Map<string, Record<string, unknown>>>;
}

async function snapshot(url: string): Promise<Snapshot> {
  return withClient(url, async (c) => {
    const columns: Snapshot["columns"] = {};
    const cols = await c.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
    );
    for (const col of cols.rows) (columns[col.table_name] ??= {})[col.column_name] = col.data_type;
    const keys = await c.query<{ table_name: string; columns: string[] }>(`
      SELECT t.relname AS table_name, array_agg(a.attname::text ORDER BY k.ord) AS columns
      FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE i.indisprimary AND n.nspname = 'public' GROUP BY t.relname`);
    const primaryKey = new Map(keys.rows.map((k) => [k.table_name, k.columns]));
    const rows: Snapshot["rows"] = {};
    for (const table of Object.keys(columns)) {
      const all = await c.query<{ row: Record<string, unknown> }>(`SELECT to_jsonb(t) AS row FROM "${table}" t`);
      // log_staging has no primary key: its inference id names a row.
      const key = primaryKey.get(table) ?? ["inference_id"];
      rows[table] = new Map(all.rows.map(({ row }) => [JSON.stringify(key.map((k) => row[k])), row]));
    }
    return { columns, rows };
  });
}

/** Every difference between the snapshots that this release's migrations do not explain. */
function unexplainedChanges(before: Snapshot, after: Snapshot): string[] {
  const found: string[] = [];
  for (const table of new Set([...Object.keys(before.columns), ...Object.keys(after.columns)])) {
    const was = before.columns[table];
    const is = after.columns[table];
    if (!was || !is) {
      found.push(`table ${table} ${was ? "dropped" : "added"}`);
      continue;
    }
    for (const [col, type] of Object.entries(is)) {
      const name = `${table}.${col}`;
      if (was[col] === undefined && !(name in NEW_COLUMNS)) found.push(`column ${name} added`);
      if (was[col] !== undefined && was[col] !== type && RETYPED[name]?.type !== type)
        found.push(`column ${name} retyped ${was[col]} → ${type}`);
    }
    for (const col of Object.keys(was)) if (!(col in is)) found.push(`column ${table}.${col} dropped`);
    // Their rows change as documented; they are compared on their own.
    if (table === "payment_transitions" || table === "_prisma_migrations") continue;
    for (const [key, old] of before.rows[table]!) {
      const now = after.rows[table]!.get(key);
      if (!now) {
        found.push(`${table} ${key} lost`);
        continue;
      }
      for (const col of Object.keys(was)) {
        const retyped = RETYPED[`${table}.${col}`];
        const rewritten = REWRITTEN[`${table}.${col}`];
        const [expected, actual] = retyped
          ? [retyped.from(old[col]), retyped.read(now[col])]
          : [rewritten ? rewritten(old[col]) : old[col], now[col]];
        if (!isDeepStrictEqual(expected, actual))
          found.push(`${table} ${key} ${col}: ${JSON.stringify(expected)} → ${JSON.stringify(actual)}`);
      }
      for (const col of Object.keys(is).filter((col) => !(col in was))) {
        if (!isDeepStrictEqual(now[col], newValueOf(`${table}.${col}`, old)))
          found.push(`${table} ${key} new ${col}: ${JSON.stringify(now[col])}`);
      }
    }
    for (const key of after.rows[table]!.keys()) if (!before.rows[table]!.has(key)) found.push(`${table} ${key} added`);
  }
  return found;
}

const pairsOf = (s: Snapshot) =>
  [...s.rows.payment_transitions!.values()].map((r) => `${String(r.from_status)}→${String(r.to_status)}`).sort();
const pairs = (list: readonly (readonly [string, string])[]) => list.map(([from, to]) => `${from}→${to}`).sort();

let stack: PaidStack;
let facilitator: Facilitator;
let previous: { url: string; drop(): Promise<void> };
let release: PreviousRelease;
let restoreEnv: (() => Promise<void>) | undefined;

beforeAll(async () => {
  // The sequencer's own timer is slowed down: the test runs its rounds itself. 250 ms slots: a blockhash signed into the
  // fill's payments stays valid about 30 s, past their retries on a busy machine.
  stack = await startPaidStack({
    env: { X402_FLAT_PRICE_USDC: "0.001", LOG_PUBLISH_INTERVAL_MS: "10000" },
    devnet: { timing: "real", slotMs: 250 },
  });
  facilitator = await createFacilitator(testConfig());
  previous = await createDatabaseMigratedTo(PREVIOUS_RELEASE_LAST_MIGRATION);
  release = await writePreviousRelease(stack, facilitator, previous.url);
});
afterAll(async () => {
  await restoreEnv?.();
  await stack?.close();
  await previous?.drop();
});

describe("an upgrade of the last release's database", () => {
  let before: Snapshot;
  let after: Snapshot;

  it("starts from every state the last release allowed, with a row in every table", async () => {
    before = await snapshot(previous.url);
    expect(Object.entries(before.rows).filter(([, rows]) => rows.size === 0)).toEqual([]);
    const allowed = await withClient(previous.url, (c) =>
      c.query<{ def: string }>(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'payments_status_check'`,
      ),
    );
    const states = [...allowed.rows[0]!.def.matchAll(/'([a-z]+)'::text/g)].map((m) => m[1]).sort();
    expect(states).toEqual(["claimed", "expired", "failed", "pending", "served", "serving", "settled", "unserved"]);
    expect([...new Set([...before.rows.payments!.values()].map((p) => p.status))].sort()).toEqual(states);
    expect([...new Set([...before.rows.credit_holds!.values()].map((h) => h.status))].sort()).toEqual([
      "captured",
      "held",
      "released",
    ]);
    expect(
      readMigrations()
        .map((m) => m.name)
        .filter((name) => name > PREVIOUS_RELEASE_LAST_MIGRATION),
    ).toEqual(Object.keys(THIS_RELEASE));
  });

  it("is applied once by two instances starting at once, and keeps every row, column by column", async () => {
    const applied = await Promise.all(
      [0, 1].map(() => withClient(previous.url, (c) => applyMigrations(runnerOf(c), { lock: true }))),
    );
    expect(applied.flat()).toEqual(Object.keys(THIS_RELEASE));
    after = await snapshot(previous.url);
    expect(unexplainedChanges(before, after)).toEqual([]);
    // The payment state table is today's, which the old one became by exactly the documented moves.
    expect(pairsOf(after)).toEqual(pairs(transitionPairs()));
    expect(pairsOf(before).filter((p) => !pairsOf(after).includes(p))).toEqual(
      pairs(EFFECTS.flatMap((m) => m.transitions.removed)),
    );
    expect(pairsOf(after).filter((p) => !pairsOf(before).includes(p))).toEqual(
      pairs(EFFECTS.flatMap((m) => m.transitions.added)),
    );
    // The old migrations' records stand; this release's are recorded once each, with their files' checksums.
    const recorded = [...after.rows._prisma_migrations!.values()];
    for (const [key, row] of before.rows._prisma_migrations!)
      expect(after.rows._prisma_migrations!.get(key)).toEqual(row);
    const checksums = new Map(readMigrations().map((m) => [m.name, m.checksum]));
    expect(
      recorded
        .filter((r) => !before.rows._prisma_migrations!.has(JSON.stringify([r.id])))
        .map((r) => [r.migration_name, r.checksum]),
    ).toEqual(Object.keys(THIS_RELEASE).map((name) => [name, checksums.get(name)]));
  });

  it("changes nothing when the migrator runs again", async () => {
    expect(await withClient(previous.url, (c) => applyMigrations(runnerOf(c), { lock: true }))).toEqual([]);
    expect(await snapshot(previous.url)).toEqual(after);
  });

  it("cannot serve beside the last release's instances: their claim and their capture of an unserved retry are refused, and the answer they keep is unreadable", async () => {
    await withClient(previous.url, async (c) => {
      // The last release's capture step of a paid call (payment-row-statements.ts at that release), as one of its
      // instances would run it on the upgraded database; rolled back.
      const capture = (id: string) =>
        c.query(
          `UPDATE payments SET status = 'served', inference_id = id, updated_at = now(), answer = $1::jsonb WHERE id = $2 AND status IN ('settled', 'serving', 'unserved')`,
          [JSON.stringify(release.keptAnswer), id],
        );
      await c.query("BEGIN");
      try {
        await c.query("SAVEPOINT before_capture");
        await expect(capture(release.payments.unserved.id)).rejects.toMatchObject({ code: "23514" });
        await c.query("ROLLBACK TO SAVEPOINT before_capture");
        await capture(release.payments.settled.id);
        // Their claim names no route, and a purpose this release's rows no longer have: refused.
        await c.query("SAVEPOINT before_claim");
        await expect(
          c.query(
            `INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, status) VALUES (gen_random_uuid(), 'old-claim', 'n', 'p', 't', 1, 'chat', 'claimed')`,
          ),
        ).rejects.toMatchObject({ code: "23502" });
        await c.query("ROLLBACK TO SAVEPOINT before_claim");
        await expect(
          c.query(
            `INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status) VALUES (gen_random_uuid(), 'old-claim', 'n', 'p', 't', 1, 'chat', 'chat', 'claimed')`,
          ),
        ).rejects.toMatchObject({ code: "23514" });
        await c.query("ROLLBACK TO SAVEPOINT before_claim");
        const { rows } = await c.query<{ answer: string }>(`SELECT answer FROM payments WHERE id = $1`, [
          release.payments.settled.id,
        ]);
        expect(readKeptAnswer(rows[0]!.answer)).toBeNull();
      } finally {
        await c.query("ROLLBACK");
      }
    });
  });

  it("leaves the books balanced: every balance is its ledger's sum, and only the holds of servers that died are open", async () => {
    const open = await openPostgres(previous.url, 2);
    try {
      const found = await checkMoney(open.prisma, stack.devnet.caip2, testConfig().PAYMENT_LEASE_MS, null);
      const dead = [release.payments.settled.id, release.payments.serving.id, release.deadPrepaidHold];
      expect(found.map((m) => m.kind)).toEqual(dead.map(() => "hold_lease_expired"));
      expect(dead.every((id) => found.some((m) => m.detail.includes(id)))).toBe(true);
    } finally {
      await open.close();
    }
  });
});

describe("the upgraded service", () => {
  const statusOf = async (l: OldCase) =>
    (await (await routeRuntime()).db.payment.findUniqueOrThrow({ where: { id: release.payments[l].id } })).status;
  const retry = (l: OldCase) => {
    const p = release.payments[l];
    const headers = { "PAYMENT-SIGNATURE": p.header };
    return OLD_PAYMENTS[l].purpose === "chat" ? stack.chat({ body: p.body, headers }) : topUp(headers);
  };
  const served: Receipt[] = [];

  it("finishes from the chain, in its sweeper, the settlements nobody retries, and releases a dead server's hold", async () => {
    restoreEnv = setEnv({ DATABASE_URL: previous.url });
    // The service starts on the upgraded database, as a process after a deploy does: its background jobs start now.
    const { db } = await routeRuntime();
    await until("the sweeper's first round", async () => {
      const states = await Promise.all(
        (["pending_landed", "topup_pending_landed", "pending_expired"] as const).map(statusOf),
      );
      const hold = await db.creditHold.findUniqueOrThrow({ where: { id: release.deadPrepaidHold } });
      return isDeepStrictEqual(states, ["unserved", "served", "expired"]) && hold.status === "released";
    });
    // The dropped settlement was broadcast again, the same transaction, and landed.
    await until("the dropped settlement to land", () => {
      const tx = stack.devnet.chain.getTransaction(release.payments.pending_dropped.transaction);
      return tx !== null && stack.devnet.chain.commitmentOf(tx) !== "processed";
    });
    expect(
      await db.balance.findUniqueOrThrow({
        where: { agentPubkey_network: { agentPubkey: release.prepaidAgent, network: stack.devnet.caip2 } },
      }),
    ).toMatchObject({ units: 1_745n });
    const settings = await (await routeRuntime()).settings.read();
    expect([settings.flatPriceUnits, settings.grantAmountUnits]).toEqual([PRICE_UNITS, 200n]);
  });

  it("answers every old payment's retry as today's rules say: served once with a receipt that verifies, its kept answer, or expired", async () => {
    for (const l of CASES) {
      const p = release.payments[l];
      const res = await retry(l);
      const expected = RESUMED[l].answer;
      if (expected === "expired") {
        expect([l, res.status, await res.json()]).toMatchObject([
          l,
          402,
          { code: "payment_required", reason: "settlement_expired" },
        ]);
        continue;
      }
      expect([l, res.status, res.headers.get("x-answer-replayed")]).toEqual([
        l,
        200,
        expected === "replayed" ? "true" : null,
      ]);
      if (OLD_PAYMENTS[l].purpose === "topup") {
        const body = (await res.json()) as Record<string, unknown>;
        expect(body).toMatchObject({
          object: "credit.topup",
          agent_pubkey: p.agent.address,
          amount_usdc: "0.002",
          tx_signature: p.transaction,
        });
        // The last release kept no top-up answer: its replay says what was bought, not a balance read now.
        expect("balance_usdc" in body).toBe(l === "topup_pending_landed");
        continue;
      }
      const answer = await readAnswer(res, "chat", false);
      const verdict = await verifyReceipt({
        receipt: answer.receipt!,
        prompt: p.body.messages,
        response: answer.response,
        operatorKey: operatorKeypair().publicKeyBase58,
        rpc: stack.devnet.url,
      });
      expect([l, verdict.ok]).toEqual([l, true]);
      expect(answer.receipt!.payment?.tx_signature).toBe(p.transaction);
      if (l === "served") {
        expect(answer.response).toEqual(release.keptAnswer);
        expect(answer.receipt).toEqual(release.receipts.paid.receipt);
      } else {
        served.push(answer.receipt!);
      }
    }
  });

  it("charges nothing twice: a second retry replays, every payer paid once on chain, and no payment is left between states", async () => {
    const db = (await routeRuntime()).db;
    const moved = () =>
      Promise.all([db.ledgerEntry.count(), db.inferenceLog.count(), db.balance.aggregate({ _sum: { units: true } })]);
    const books = await moved();
    for (const l of CASES) {
      const res = await retry(l);
      expect([l, res.status, res.headers.get("x-answer-replayed")]).toEqual([
        l,
        ...(RESUMED[l].status === "served" ? [200, "true"] : [402, null]),
      ]);
    }
    expect(await moved()).toEqual(books);
    for (const l of CASES) {
      const paid =
        RESUMED[l].status === "served" ? (OLD_PAYMENTS[l].purpose === "chat" ? PRICE_UNITS : TOP_UP_UNITS) : 0n;
      expect([l, await stack.devnet.usdcBalance(release.payments[l].agent.address)]).toEqual([l, AGENT_FUNDS - paid]);
      expect([l, await statusOf(l)]).toEqual([l, RESUMED[l].status]);
    }
    const statuses = await db.payment.groupBy({ by: ["status"], _count: { _all: true } });
    expect(statuses.map((s) => s.status).sort()).toEqual(["expired", "served"]);
  });

  it("reconciles with the chain without a mismatch, and its log extends the last release's checkpoint with every receipt", async () => {
    const runtime = await routeRuntime();
    const [report] = await reconcile(runtime);
    const landed = CASES.filter((l) => RESUMED[l].status === "served").length;
    expect(report).toMatchObject({
      network: stack.devnet.caip2,
      onChainTransfers: landed,
      recordedPayments: landed,
      pendingClaims: 0,
      pendingSettlements: 0,
      mismatches: [],
    });

    await until("the log to take every staged receipt", async () => {
      await publishLog(runtime.db, logIdentity(), quietLog);
      const [staged] = await runtime.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM log_staging`;
      return staged!.n === 0n;
    });
    const logKey = logIdentity().verifierKey;
    const latest = openCheckpoint(
      await (await checkpointRoute(new Request("http://signet.test/log/checkpoint"), {})).text(),
      { logKey },
    );
    if (!latest.ok) throw new Error(latest.reason);
    // The last release's checkpoint is still served whole (its witness's cosignature too), and today's extends it.
    const old = await checkpointOfSizeRoute(new Request("http://signet.test/log/checkpoints/2"), {
      params: Promise.resolve({ size: "2" }),
    });
    expect(await old.text()).toBe(release.checkpoint.note);
    const opened = openCheckpoint(release.checkpoint.note, { logKey, witnesses: [release.witnessKey], quorum: 1 });
    if (!opened.ok) throw new Error(opened.reason);
    const tiles = tileHashReader(latest.checkpoint.size, async (tile) => {
      const res = await tileRoute(new Request(`http://signet.test/log/${tilePath(tile)}`), {
        params: Promise.resolve({ path: tilePath(tile).split("/").slice(1) }),
      });
      return new Uint8Array(await res.arrayBuffer());
    });
    const consistency = await proveConsistency(opened.checkpoint.size, latest.checkpoint.size, tiles);
    expect(
      verifyConsistency(
        opened.checkpoint.size,
        latest.checkpoint.size,
        opened.checkpoint.root,
        latest.checkpoint.root,
        consistency,
      ),
    ).toBe(true);

    const receipts = [
      release.receipts.paid.receipt,
      release.receipts.prepaidLogged.receipt,
      release.receipts.prepaidStaged.receipt,
      ...served,
    ];
    expect(latest.checkpoint.size).toBe(receipts.length);
    for (const receipt of receipts) {
      const id = String(receipt.inference_id);
      const proof = (await (
        await proofRoute(new Request(`http://signet.test/api/v1/receipts/${id}/proof`), {
          params: Promise.resolve({ id }),
        })
      ).json()) as ReceiptLogProof;
      expect([id, verifyReceiptInclusion(receipt as unknown as Record<string, unknown>, proof, { logKey }).ok]).toEqual(
        [id, true],
      );
    }
    for (const old of [release.receipts.prepaidLogged, release.receipts.prepaidStaged]) {
      expect(
        (
          await verifyReceipt({
            receipt: old.receipt,
            prompt: old.prompt,
            response: old.response,
            operatorKey: operatorKeypair().publicKeyBase58,
            offline: true,
          })
        ).ok,
      ).toBe(true);
    }
  });
});
