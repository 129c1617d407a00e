// A backup restores to a service that verifies everything it served. The service's real paid flow runs on PostgreSQL
// (paid chat calls, an x402 top-up and prepaid calls from it, a signed log checkpoint); it is backed up with the
// commands operators are given (docs/deploy.md), while it keeps serving; the backup is restored into an empty
// database and the service started on it with the same keys. Then: every receipt served before the backup verifies,
// its inclusion proof included, against the restored log; the log's checkpoint is consistent with the one before;
// balances and the ledger are as they were; reconcile finds nothing wrong; a new paid call is served and logged without
// forking the log; a payment header served before buys nothing more. What a backup does not hold: the keys (a start on
// it with another log key is refused, and a server on it stalls its log until the old key is the previous one), and
// anything committed after its snapshot (a checkpoint signed after it is contradicted by the restored log).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import bs58 from "bs58";
import pg from "pg";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as topUpRoute } from "@/app/api/v1/credits/route";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { GET as proofRoute } from "@/app/api/v1/receipts/[id]/proof/route";
import { GET as checkpointRoute } from "@/app/log/checkpoint/route";
import { GET as checkpointOfSizeRoute } from "@/app/log/checkpoints/[size]/route";
import { GET as logKeyRoute } from "@/app/log/key/route";
import { GET as tileRoute } from "@/app/log/tile/[...path]/route";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import type { Receipt } from "../../receipts/receipt-types";
import { checkDatabaseAtStart } from "../../runtime/check-database-at-start";
import { routeConfig, routeRuntime } from "../../runtime/route-edge";
import { publishLog } from "../../transparency/publish-log";
import {
  openCheckpoint,
  proveConsistency,
  tileHashReader,
  tilePath,
  verifyConsistency,
  verifyReceipt,
  verifyReceiptInclusion,
  type Checkpoint,
  type ReceiptLogProof,
} from "../../verify";
import { logIdentity, operatorKeypair, setEnv, TEST_ADMIN_URL, tempDataDir } from "../support/env";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { readAnswer, signedCall } from "../support/route-calls";
import { createLogger } from "../../log";

/** Where this file's own sequencer rounds log: nowhere. */
const quietLog = createLogger("silent");

/**
 * The backup and restore docs/deploy.md gives operators, word for word; `<file>`, `<DATABASE_URL>` and `<NEW_URL>` are
 * theirs. pg_dump reads one snapshot, so a backup taken while the service serves is consistent. The restore runs in one
 * transaction: a restore that fails (a target not empty, a disk full) leaves nothing, never a database with its rows
 * but without the indexes and constraints restored last (payments.payload_hash's unique index is replay protection,
 * and _prisma_migrations, restored with the rows, would tell start-up every migration is applied).
 */
const BACKUP_COMMAND = "pg_dump --format=custom --no-owner --file=<file> <DATABASE_URL>";
const RESTORE_COMMAND = "pg_restore --no-owner --exit-on-error --single-transaction --dbname=<NEW_URL> <file>";

const run = promisify(execFile);
/** Runs one of the commands above with its placeholders filled in; resolves with its exit code and stderr. */
async function runCommand(command: string, values: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const [file, ...args] = command
    .split(" ")
    .map((arg) => arg.replace(/<([A-Za-z_]+)>/g, (_, name: string) => values[name] ?? `<${name}>`));
  try {
    const { stderr } = await run(file!, args);
    return { code: 0, stderr };
  } catch (err) {
    const failed = err as { code?: number; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, stderr: failed.stderr ?? String(err) };
  }
}

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A fresh, empty database on the test server (what `createdb` makes). */
async function emptyDatabase(made: string[]): Promise<string> {
  const name = `signet_restore_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  made.push(name);
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A database's schema as lines: columns (with their defaults), indexes, constraints and triggers. */
async function schemaOf(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ line: string }>(`
      SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || coalesce(column_default, '') AS line FROM information_schema.columns WHERE table_schema = 'public'
      UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
      UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
      UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
      ORDER BY 1`);
    return rows.map((r) => r.line);
  } finally {
    await c.end();
  }
}

const PRICE = 1_000n;
const AGENT_FUNDS = 1_000_000n;
const ORIGIN = "http://signet.test";

/** A call served, with what its verifier needs. */
interface Served {
  receipt: Receipt;
  prompt: unknown;
  response: unknown;
}

let stack: PaidStack;
let dir: string;
const databases: string[] = [];
const undo: (() => Promise<void>)[] = [];
beforeAll(async () => {
  // The sequencer's own timer is slowed down: the test runs its rounds itself.
  stack = await startPaidStack({
    env: { X402_FLAT_PRICE_USDC: "0.001", LOG_PUBLISH_INTERVAL_MS: "10000", PREPAID_RATE_LIMIT_PER_MINUTE: "100000" },
  });
  dir = tempDataDir("signet-backup-");
});
afterAll(async () => {
  for (const restore of undo.reverse()) await restore();
  await stack?.close();
  for (const name of databases) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const chatBody = (content: string) => ({ model: "local/echo-1", messages: [{ role: "user", content }] });
const db = async () => (await routeRuntime()).db;

async function paidCall(
  content: string,
): Promise<Served & { header: string; body: ReturnType<typeof chatBody>; payer: string }> {
  const agent = await stack.newAgent(AGENT_FUNDS);
  const body = chatBody(content);
  const header = await buildPaymentHeader(
    agent,
    await challengeOf(await stack.chat({ body })),
    stack.devnet.faultFreeUrl,
  );
  const answer = await readAnswer(await stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } }), "chat", false);
  expect(answer.status).toBe(200);
  return {
    receipt: answer.receipt!,
    prompt: body.messages,
    response: answer.response,
    header,
    body,
    payer: agent.address,
  };
}

async function prepaidCall(kp: Ed25519Keypair, content: string): Promise<Served> {
  const { request, body } = signedCall(kp, "inference", content, { stream: false });
  const answer = await readAnswer(await inferenceRoute(request, {}), "inference", false);
  expect(answer.status).toBe(200);
  return { receipt: answer.receipt!, prompt: body.messages, response: answer.response };
}

/** Sequences every staged receipt; returns the served latest checkpoint, opened with `logKey`. */
async function publishAll(logKey: string): Promise<Checkpoint> {
  const database = await db();
  while (await publishLog(database, logIdentity(), quietLog));
  const opened = openCheckpoint(await (await checkpointRoute(new Request(`${ORIGIN}/log/checkpoint`), {})).text(), {
    logKey,
  });
  if (!opened.ok) throw new Error(`the checkpoint does not open: ${opened.reason}`);
  return opened.checkpoint;
}

/** Whether the served log proves `newer` extends `older`, as a client reads it (tiles from the tile route). */
async function extendsCheckpoint(older: Checkpoint, newer: Checkpoint): Promise<boolean> {
  const tiles = tileHashReader(newer.size, async (tile) => {
    const res = await tileRoute(new Request(`${ORIGIN}/log/${tilePath(tile)}`), {
      params: Promise.resolve({ path: tilePath(tile).split("/").slice(1) }),
    });
    if (!res.ok) throw new Error(`tile ${tilePath(tile)}: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  });
  return verifyConsistency(
    older.size,
    newer.size,
    older.root,
    newer.root,
    await proveConsistency(older.size, newer.size, tiles),
  );
}

/** The receipt verifies (signature, hashes, payment on chain) and the served log proves it under `logKey`. */
async function verifiesWithProof(
  served: Served,
  logKey: string,
): Promise<{ receipt: boolean; logged: boolean | string }> {
  const verdict = await verifyReceipt({
    receipt: served.receipt,
    prompt: served.prompt,
    response: served.response,
    operatorKey: operatorKeypair().publicKeyBase58,
    rpc: stack.devnet.url,
  });
  const id = String(served.receipt.inference_id);
  const res = await proofRoute(new Request(`${ORIGIN}/api/v1/receipts/${id}/proof`), {
    params: Promise.resolve({ id }),
  });
  if (!res.ok) return { receipt: verdict.ok, logged: `proof answered ${res.status}` };
  const included = verifyReceiptInclusion(
    served.receipt as unknown as Record<string, unknown>,
    (await res.json()) as ReceiptLogProof,
    { logKey },
  );
  return { receipt: verdict.ok, logged: included.ok || included.reason };
}

/** The rows a backup must give back as they were: balances and ledger entries. */
async function books(agents: string[]) {
  const database = await db();
  return {
    balances: await database.balance.findMany({
      where: { agentPubkey: { in: agents } },
      orderBy: [{ agentPubkey: "asc" }, { network: "asc" }],
    }),
    ledger: await database.ledgerEntry.findMany({ where: { agentPubkey: { in: agents } }, orderBy: { id: "asc" } }),
  };
}

describe("a backup of a serving service", () => {
  const logKey = () => logIdentity().verifierKey;
  let paid: Awaited<ReturnType<typeof paidCall>>[];
  let prepaid: Served[];
  let prepaidAgent: Ed25519Keypair;
  let before: Checkpoint;
  let booksBefore: Awaited<ReturnType<typeof books>>;
  let agents: string[];
  let loadAgent: Ed25519Keypair;
  let signedAfter: Checkpoint;
  let backup: string;
  let restored: string;

  it("serves paid and prepaid calls, a top-up, and signs a checkpoint over their receipts", async () => {
    paid = [await paidCall("paid before the backup, 1"), await paidCall("paid before the backup, 2")];
    prepaidAgent = generateKeypair();
    const signer = await createKeyPairSignerFromBytes(
      new Uint8Array([...prepaidAgent.seed, ...prepaidAgent.publicKey]),
    );
    await stack.devnet.fundAccount(signer.address, { usdcUnits: AGENT_FUNDS });
    const topUp = (headers: Record<string, string> = {}) =>
      topUpRoute(
        new Request(`${ORIGIN}/api/v1/credits`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ amount_usdc: "0.01" }),
        }),
        {},
      );
    const header = await buildPaymentHeader(signer, await challengeOf(await topUp()), stack.devnet.faultFreeUrl);
    expect((await topUp({ "PAYMENT-SIGNATURE": header })).status).toBe(200);
    prepaid = [
      await prepaidCall(prepaidAgent, "prepaid before the backup, 1"),
      await prepaidCall(prepaidAgent, "prepaid before the backup, 2"),
    ];
    before = await publishAll(logKey());
    expect(before.size).toBe(4);
    agents = [...paid.map((p) => p.payer), prepaidAgent.publicKeyBase58];
    booksBefore = await books(agents);
  });

  it("is taken with pg_dump while the service goes on serving and logging", async () => {
    loadAgent = generateKeypair();
    await stack.credit(loadAgent.publicKeyBase58, 1_000_000n);
    backup = path.join(dir, "signet.dump");
    let dumping = true;
    const during: number[] = [];
    const serving = (async () => {
      for (let n = 0; dumping; n++) {
        await prepaidCall(loadAgent, `served during the backup ${n}`);
        during.push(n);
        if (n % 2 === 1) await publishLog(await db(), logIdentity(), quietLog);
      }
    })();
    const started = during.length;
    const dumped = await runCommand(BACKUP_COMMAND, { file: backup, DATABASE_URL: stack.tdb.url });
    const ended = during.length;
    dumping = false;
    await serving;
    expect(dumped).toEqual({ code: 0, stderr: "" });
    // Calls were answered while pg_dump read the database.
    expect(ended - started).toBeGreaterThan(0);
    // After the backup: one more call and a checkpoint over it, which the backup cannot hold.
    await prepaidCall(loadAgent, "served after the backup");
    signedAfter = await publishAll(logKey());
  });

  it("restores into an empty database with pg_restore, its schema whole: every index, constraint and trigger", async () => {
    restored = await emptyDatabase(databases);
    expect(await runCommand(RESTORE_COMMAND, { NEW_URL: restored, file: backup })).toEqual({ code: 0, stderr: "" });
    expect(await schemaOf(restored)).toEqual(await schemaOf(stack.tdb.url));
  });

  it("starts on the restored database, and every receipt served before the backup verifies with its proof in the restored log", async () => {
    undo.push(setEnv({ DATABASE_URL: restored }));
    for (const served of [...paid, ...prepaid])
      expect(await verifiesWithProof(served, logKey())).toEqual({ receipt: true, logged: true });
    // The restored log's checkpoint is the one before the backup, or one that extends it (receipts staged during it).
    const latest = await publishAll(logKey());
    expect(latest.size).toBeGreaterThanOrEqual(before.size);
    expect(await extendsCheckpoint(before, latest)).toBe(true);
  });

  it("holds the balances and the ledger as they were, one snapshot of them, and reconcile finds nothing wrong", async () => {
    expect(await books(agents)).toEqual(booksBefore);
    // The agent served during the backup: its balance is the sum of the ledger entries the snapshot holds, each one
    // as the running service wrote it.
    const load = await books([loadAgent.publicKeyBase58]);
    expect(load.balances[0]!.units).toBe(load.ledger.reduce((sum, e) => sum + e.units, 0n));
    const original = await stack.tdb.prisma.ledgerEntry.findMany({
      where: { id: { in: load.ledger.map((e) => e.id) } },
      orderBy: { id: "asc" },
    });
    expect(load.ledger).toEqual(original);
    const [report] = await reconcile(await routeRuntime());
    expect(report).toMatchObject({
      network: stack.devnet.caip2,
      onChainTransfers: 3,
      recordedPayments: 3,
      pendingClaims: 0,
      pendingSettlements: 0,
      mismatches: [],
    });
  });

  it("serves a new paid call and appends its receipt to the log without forking it", async () => {
    const latest = await publishAll(logKey());
    const served = await paidCall("paid after the restore");
    const after = await publishAll(logKey());
    expect(after.size).toBe(latest.size + 1);
    expect(await extendsCheckpoint(before, after)).toBe(true);
    expect(await extendsCheckpoint(latest, after)).toBe(true);
    expect(await verifiesWithProof(served, logKey())).toEqual({ receipt: true, logged: true });
    const [report] = await reconcile(await routeRuntime());
    expect(report).toMatchObject({ onChainTransfers: 4, recordedPayments: 4, mismatches: [] });
  });

  it("lets a payment header served before the backup buy nothing more: its kept answer again, or a refusal", async () => {
    const [first] = paid;
    const database = await db();
    const moved = () => Promise.all([database.ledgerEntry.count(), database.inferenceLog.count()]);
    const counted = await moved();
    const again = await readAnswer(
      await stack.chat({ body: first!.body, headers: { "PAYMENT-SIGNATURE": first!.header } }),
      "chat",
      false,
    );
    expect([again.status, again.replayed, again.receipt]).toEqual([200, true, first!.receipt]);
    const other = await stack.chat({
      body: chatBody("another request with the same payment"),
      headers: { "PAYMENT-SIGNATURE": first!.header },
    });
    expect([other.status, ((await other.json()) as { error: { code: string } }).error.code]).toEqual([
      409,
      "payment_request_mismatch",
    ]);
    expect(await moved()).toEqual(counted);
    expect(await stack.devnet.usdcBalance(first!.payer)).toBe(AGENT_FUNDS - PRICE);
  });

  it("does not hold what was signed after it: the restored log contradicts a checkpoint signed after the backup", async () => {
    // The restored log goes on from the backup's tree; once it reaches the size of the checkpoint the old database
    // signed after the backup, its root there is another: a fork, which every monitor and witness reports.
    for (let n = 0; (await publishAll(logKey())).size < signedAfter.size; n++)
      await prepaidCall(loadAgent, `served after the restore ${n}`);
    const size = String(signedAfter.size);
    const res = await checkpointOfSizeRoute(new Request(`${ORIGIN}/log/checkpoints/${size}`), {
      params: Promise.resolve({ size }),
    });
    const restoredAtSize = openCheckpoint(await res.text(), { logKey: logKey() });
    if (!restoredAtSize.ok)
      throw new Error(`the restored log's checkpoint of size ${size} does not open: ${restoredAtSize.reason}`);
    expect(Buffer.from(restoredAtSize.checkpoint.root).equals(Buffer.from(signedAfter.root))).toBe(false);
  });

  it("does not hold the keys: they are restored beside it, and a start with another log key is refused", async () => {
    // The custom format is compressed: read it as the SQL it restores.
    const { stdout: dump } = await run("pg_restore", ["--file=-", backup], { maxBuffer: 64 * 1024 * 1024 });
    expect(dump).toContain(String(paid[0]!.receipt.service_signature));
    for (const seed of [operatorKeypair().seed, logIdentity().keypair.seed]) {
      for (const spelling of [
        bs58.encode(seed),
        Buffer.from(seed).toString("hex"),
        Buffer.from(seed).toString("base64"),
      ])
        expect(dump).not.toContain(spelling);
    }

    // The same backup, started with a log key of its own: start-up refuses it (the log's latest checkpoint names the
    // key that signed it), and a server on it anyway stalls its log rather than sign the old log with another key.
    // With the old key as LOG_PREVIOUS_SECRET_KEY it is a rotation: both keys sign, and the pinned key keeps verifying.
    const pinned = logKey();
    const oldSeed = logIdentity().keypair.seed;
    const other = generateKeypair();
    const again = await emptyDatabase(databases);
    expect((await runCommand(RESTORE_COMMAND, { NEW_URL: again, file: backup })).code).toBe(0);
    undo.push(setEnv({ DATABASE_URL: again, LOG_SECRET_KEY: bs58.encode(other.seed) }));
    await expect(checkDatabaseAtStart(await routeConfig())).rejects.toThrow(/LOG_PREVIOUS_SECRET_KEY/);
    const stalled = await prepaidCall(loadAgent, "served with another log key");
    expect(await publishLog(await db(), logIdentity(), quietLog)).toBeNull();
    const latestNote = async () => (await checkpointRoute(new Request(`${ORIGIN}/log/checkpoint`), {})).text();
    expect(openCheckpoint(await latestNote(), { logKey: pinned }).ok).toBe(true);
    expect(openCheckpoint(await latestNote(), { logKey: logIdentity().verifierKey })).toEqual({
      ok: false,
      reason: "log_signature_missing",
    });

    undo.push(
      setEnv({
        DATABASE_URL: again,
        LOG_SECRET_KEY: bs58.encode(other.seed),
        LOG_PREVIOUS_SECRET_KEY: bs58.encode(oldSeed),
      }),
    );
    await expect(checkDatabaseAtStart(await routeConfig())).resolves.toBeUndefined();
    const announced = (await (await logKeyRoute(new Request(`${ORIGIN}/log/key`), {})).json()) as {
      verifier_key: string;
      previous_verifier_key: string | null;
    };
    expect(announced).toMatchObject({ verifier_key: logIdentity().verifierKey, previous_verifier_key: pinned });
    while (await publishLog(await db(), logIdentity(), quietLog));
    for (const key of [pinned, logIdentity().verifierKey])
      expect(openCheckpoint(await latestNote(), { logKey: key }).ok).toBe(true);
    expect(await verifiesWithProof(stalled, pinned)).toEqual({ receipt: true, logged: true });
    expect(await verifiesWithProof(paid[0]!, pinned)).toEqual({ receipt: true, logged: true });
  });

  it("restores nothing when a restore fails, so no service can start on half of a backup", async () => {
    // A target that is not empty: a relation already named like one of the backup's unique indexes, which pg_restore
    // creates after the tables and their rows.
    const target = await emptyDatabase(databases);
    const c = new pg.Client({ connectionString: target });
    await c.connect();
    try {
      await c.query(`CREATE TABLE "payments_payload_hash_key" ("x" INTEGER)`);
      const failed = await runCommand(RESTORE_COMMAND, { NEW_URL: target, file: backup });
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toContain("payments_payload_hash_key");
      const tables = await c.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      expect(tables.rows.map((t) => t.table_name)).toEqual(["payments_payload_hash_key"]);
    } finally {
      await c.end();
    }
  });
});
