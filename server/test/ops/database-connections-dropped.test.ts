// The database drops every connection of the service in the middle of a mixed load (what a managed database's
// failover does): the process keeps running, the calls caught mid-way answer 503 database_unavailable, and a retry of
// the same payment header serves its call once, as soon as the database is back: a cut-off call hands its payment (or
// its prepaid hold) back then, never waiting out its lease, which is longer here than the client retries for.
// Nothing is charged twice or lost, the service recovers on its own, and reconcile finds zero drift.
// Two more modes fault the call's record itself, under the same load and the same invariants:
// - the database refuses some records for good (SQLSTATE 22P05): those calls are never served again, their paid
//   price refunded to the payer's credit (the retry answers payment_refunded) and their prepaid hold released;
// - the connection drops right after some records committed, before the reply (through a proxy in front of
//   PostgreSQL): each such call is served with the record that committed, once.
import { randomUUID } from "node:crypto";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as inferenceRoute } from "@/app/api/v1/inference/route";
import { routeRuntime } from "../../runtime/route-edge";
import { newNonce, signRequestHeaders } from "../../agent/sign-request";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { reconcile } from "../../reconcile/reconcile";
import { buildPaymentHeader, challengeOf, startPaidStack, type PaidStack } from "../support/paid-stack";
import { serviceError } from "../../errors/error-body";
import { SETTLEMENT_EXPIRED } from "../../ledger/payment-states";
import { blockhashOfWire } from "../../facilitator/confirm-with-rebroadcast";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const AGENTS = 3;
const AGENT_USDC_UNITS = 1_000_000n;
const PREPAID_CREDIT_UNITS = 500_000n;
/**
 * How far the load runs before the connections are first dropped (calls served), how often they are dropped (at least
 * MIN_DROPS times, each once a call begun after the last drop was served, and on until a call was caught mid-way, at most
 * MAX_DROPS), and how far the load runs on after (calls served). Counted in calls, not time: a loaded machine serves
 * fewer in the same time.
 */
const SERVED_BEFORE = 12;
const MIN_DROPS = 8;
const MAX_DROPS = 20;
const SERVED_BETWEEN_DROPS = 1;
const SERVED_AFTER = 12;
/** How long a client retries a call answered 503 (with Retry-After) before the test calls it lost. */
const RETRY_FOR_MS = 20_000;
/**
 * The lease after which a claim or a hold nobody renews is taken over or released: longer than a client retries for,
 * so a call served by its retry was handed back when the database returned, not by its lease running out.
 */
const LEASE_MS = 60_000;
/**
 * How far the load runs with a record fault on (answers, at least, and on until the fault has met each kind of call it
 * must), the share of records refused, and the replies dropped after commit.
 */
const ANSWERS_UNDER_FAULT = 24;
const REFUSED_SHARE = 0.3;
const REPLIES_DROPPED = 12;
/** How soon the money of calls cut off mid-way is back where it belongs once the database is. */
const HANDED_BACK_WITHIN_MS = 15_000;

let stack: PaidStack;
let admin: pg.Client;
/** Every error that reached the process uncaught while the test ran. */
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => void uncaught.push(err);

beforeAll(async () => {
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  stack = await startPaidStack({
    dbProxy: true,
    env: {
      X402_FLAT_PRICE_USDC: "0.001",
      PREPAID_RATE_LIMIT_PER_MINUTE: "100000",
      PAYMENT_LEASE_MS: String(LEASE_MS),
      SETTLEMENT_CONFIRM_WAIT_MS: "3000",
    },
  });
  admin = new pg.Client({ connectionString: stack.tdb.url });
  admin.on("error", (err) => uncaught.push(err));
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await stack?.close();
  process.off("uncaughtException", onUncaught);
  process.off("unhandledRejection", onUncaught);
});

interface Agent {
  kp: Ed25519Keypair;
  signer: KeyPairSigner;
}

async function newAgent(): Promise<Agent> {
  const kp = generateKeypair();
  const signer = await createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
  await stack.devnet.fundAccount(signer.address, { usdcUnits: AGENT_USDC_UNITS });
  await stack.credit(kp.publicKeyBase58, PREPAID_CREDIT_UNITS);
  return { kp, signer };
}

/** Every answer of the load, by the status and code it carried; `byKind` adds the kind of call ("paid 503 …"). */
const answers = new Map<string, number>();
const byKind = new Map<string, number>();
/** Every answer counted since the file began (never reset). */
let counted = 0;
/** Bumped at each drop of the connections: a call's attempt belongs to the drop count when it began. */
let drops = 0;
/** Calls served (200), by the drop count when their attempt began. */
const servedAfterDrop = new Map<number, number>();
/** What the test waits for from the load: each resolves at the first answer counted at which it holds. */
const watchers = new Set<{ holds: () => boolean; resolve: () => void }>();
function count(kind: string, res: Response, code: string | undefined, began: number): void {
  const key = `${res.status}${code ? ` ${code}` : ""}`;
  if (res.status === 200) servedAfterDrop.set(began, (servedAfterDrop.get(began) ?? 0) + 1);
  answers.set(key, (answers.get(key) ?? 0) + 1);
  byKind.set(`${kind} ${key}`, (byKind.get(`${kind} ${key}`) ?? 0) + 1);
  counted++;
  for (const watcher of watchers) {
    if (!watcher.holds()) continue;
    watchers.delete(watcher);
    watcher.resolve();
  }
}

/** Resolves once the load's answers make `holds()` true: the test follows the load's progress, not a guess of time. */
function whenAnswers(holds: () => boolean): Promise<void> {
  if (holds()) return Promise.resolve();
  return new Promise((resolve) => watchers.add({ holds, resolve }));
}

/**
 * Resolves once `n` calls that began after the last drop were served: the service has its connections back (a call
 * that had done its queries before the drop may still answer 200 after it).
 */
function servedSinceDrop(n: number): Promise<void> {
  const since = drops;
  return whenAnswers(() => (servedAfterDrop.get(since) ?? 0) >= n);
}

/** Resolves once `n` more answers were counted: of status `key` ("200"), or of any. */
function moreAnswers(n: number, key?: string): Promise<void> {
  const seen = () => (key === undefined ? counted : (answers.get(key) ?? 0));
  const from = seen();
  return whenAnswers(() => seen() >= from + n);
}

/** The stable code of a non-200 answer. */
async function errorCode(res: Response): Promise<string | undefined> {
  if (res.status === 200) return undefined;
  return serviceError(await res.clone().json()).code || undefined;
}

/**
 * Sends `attempt` until it is served: a 503 (the database away, or the call's record waiting for it) is retried after a
 * pause (a client honouring Retry-After, shortened); any other answer ends the call. Returns the last answer.
 */
async function untilServed(kind: string, attempt: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + RETRY_FOR_MS;
  let caught = false;
  for (;;) {
    const began = drops;
    const res = await attempt();
    const code = await errorCode(res);
    count(kind, res, code, began);
    if (caught && code === "payment_replay" && replayBodies.length < 3) replayBodies.push(await res.clone().text());
    // A payment caught mid-way is handed back to its retry once the database answers again (a few hundred ms after),
    // or its kept answer is recorded then: until then its header may still be refused as being processed.
    const retry = res.status === 503 || (caught && code === "payment_replay");
    if (!retry || Date.now() > deadline) return res;
    if (res.status === 503) expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    caught = true;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The first bodies of a payment header refused as a replay after it was answered 503 (for the log). */
const replayBodies: string[] = [];

/** Paid answers that were a 402 for a payment whose blockhash expired, each followed by a new payment. */
let expiredPayments = 0;
/**
 * Why a payment whose blockhash expired is refused, by where it was when it expired: before the verification's
 * simulation, before its send, or while the settlement waited.
 */
const EXPIRED_REASONS: unknown[] = [
  "invalid_exact_svm_transaction_simulation_failed",
  "invalid_exact_svm_transaction_failed",
  SETTLEMENT_EXPIRED,
];

/** The blockhash the payment header's transaction was built on. */
function blockhashOf(header: string): string {
  const { transaction } = decodePaymentSignatureHeader(header).payload as { transaction: string };
  const blockhash = blockhashOfWire(transaction);
  if (blockhash === null) throw new Error("the payment header holds no Solana transaction");
  return blockhash;
}

/**
 * One paid call: a challenge, a payment, and the same payment header again for as long as it answers 503. A payment
 * whose blockhash expired while it waited (the database away, a busy machine: the local chain's blockhashes live 15 s)
 * is refused 402 with nothing charged (EXPIRED_REASONS); the client then pays again, as an x402 client does.
 */
async function paidCall(agent: Agent): Promise<Response> {
  const body = { model: "local/echo-1", messages: [{ role: "user", content: `paid ${randomUUID()}` }] };
  for (;;) {
    const challenge = await untilServed("challenge", () => stack.chat({ body }));
    if (challenge.status !== 402) return challenge;
    const header = await buildPaymentHeader(agent.signer, await challengeOf(challenge), stack.devnet.faultFreeUrl);
    const res = await untilServed("paid", () => stack.chat({ body, headers: { "PAYMENT-SIGNATURE": header } }));
    if (res.status !== 402) return res;
    const { reason } = (await res.clone().json()) as { reason?: unknown };
    expect(EXPIRED_REASONS).toContain(reason);
    expect(stack.devnet.chain.isBlockhashValid(blockhashOf(header)), `refused 402 ${String(reason)}`).toBe(false);
    expiredPayments++;
  }
}

/** One prepaid call; each retry is a fresh signed request (a new nonce), as a client sends it. */
function prepaidCall(agent: Agent): Promise<Response> {
  return untilServed("prepaid", () => {
    const text = JSON.stringify({
      model: "local/echo-1",
      messages: [{ role: "user", content: `prepaid ${randomUUID()}` }],
      nonce: newNonce(),
      timestamp: Date.now(),
    });
    const url = "http://signet.test/api/v1/inference";
    return inferenceRoute(
      new Request(url, { method: "POST", headers: signRequestHeaders(agent.kp, "POST", url, text), body: text }),
      {},
    );
  });
}

/** Ends every session on the test's own database but the admin's: what a failover does to the service. */
async function dropServiceConnections(): Promise<number> {
  const { rows } = await admin.query<{ db: string }>("SELECT current_database() AS db");
  // SECURITY: the admin connection is to the test's own fresh database, never to the shared server's others.
  expect(rows[0]!.db).toBe(new URL(stack.tdb.url).pathname.slice(1));
  expect(rows[0]!.db).toMatch(/^signet_t_/);
  const killed = await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return killed.rowCount ?? 0;
}

/** Runs paid and prepaid calls for `agent` until `stop()`; returns their final answers. */
async function load(agent: Agent, stop: () => boolean): Promise<Response[]> {
  const finals: Response[] = [];
  const worker = async (call: (a: Agent) => Promise<Response>) => {
    while (!stop()) finals.push(await call(agent));
  };
  await Promise.all([worker(paidCall), worker(paidCall), worker(paidCall), worker(prepaidCall)]);
  return finals;
}

/** Forgets the answers counted so far: each test counts its own load. */
function resetCounts(): void {
  answers.clear();
  byKind.clear();
  replayBodies.length = 0;
  expiredPayments = 0;
}

/**
 * Every kind of answer the load got is one of `allowed`, or a paid call's 402 for an expired blockhash (paidCall
 * checked its reason and the chain, and paid again).
 */
function expectOnlyAnswers(allowed: string[]): void {
  expect(byKind.get("paid 402 payment_required") ?? 0).toBe(expiredPayments);
  for (const key of byKind.keys()) if (key !== "paid 402 payment_required") expect(allowed).toContain(key);
}

/**
 * The money after a load, whatever faulted: every unit paid on chain was credited once, every balance is the sum of
 * its ledger, no hold is left open, every payment ended served (or, with `refunded`, refunded with its hold released
 * and no call logged), and reconcile finds no drift.
 */
async function moneyHolds(agents: Agent[], opts: { refunded: boolean }): Promise<void> {
  const db = stack.tdb.prisma;
  const deadline = Date.now() + HANDED_BACK_WITHIN_MS;
  while ((await db.creditHold.count({ where: { status: "held" } })) > 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 250));
  expect(await db.creditHold.count({ where: { status: "held" } })).toBe(0);
  for (const agent of agents) {
    const who = agent.kp.publicKeyBase58;
    const paidOnChain = AGENT_USDC_UNITS - (await stack.devnet.usdcBalance(agent.signer.address));
    const credited = await db.ledgerEntry.aggregate({
      where: { agentPubkey: who, network: DEVNET, kind: "payment_credit" },
      _sum: { units: true },
    });
    expect(credited._sum.units ?? 0n).toBe(paidOnChain);
    const ledger = await db.ledgerEntry.aggregate({
      where: { agentPubkey: who, network: DEVNET },
      _sum: { units: true },
    });
    const balance = await db.balance.findUnique({
      where: { agentPubkey_network: { agentPubkey: who, network: DEVNET } },
    });
    expect(balance?.units).toBe(ledger._sum.units);
  }
  const payments = await db.payment.findMany({
    where: { network: DEVNET, payer: { in: agents.map((a) => a.signer.address) } },
  });
  expect(payments.length).toBeGreaterThan(0);
  for (const payment of payments) {
    if (payment.status === "failed") {
      // Expired before it could land: never credited, never served (the chain's balance was checked above).
      expect(EXPIRED_REASONS).toContain(payment.failureReason);
      expect(await db.ledgerEntry.count({ where: { paymentId: payment.id } })).toBe(0);
      expect(await db.inferenceLog.count({ where: { paymentId: payment.id } })).toBe(0);
      continue;
    }
    expect(opts.refunded ? ["served", "refunded"] : ["served"]).toContain(payment.status);
    expect(await db.ledgerEntry.count({ where: { paymentId: payment.id, kind: "payment_credit" } })).toBe(1);
    const calls = await db.inferenceLog.count({ where: { paymentId: payment.id } });
    expect(calls).toBe(payment.status === "served" ? 1 : 0);
    if (payment.status === "refunded")
      expect(await db.creditHold.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({
        status: "released",
      });
  }
  const reports = await reconcile(await routeRuntime());
  expect(reports.flatMap((r) => r.mismatches)).toEqual([]);
  expect(reports.reduce((n, r) => n + r.pendingClaims + r.pendingSettlements, 0)).toBe(0);
  expect(uncaught).toEqual([]);
}

/**
 * Runs the load with `arm`'s fault on for ANSWERS_UNDER_FAULT answers, and on until `met()` says the fault has met what
 * the test checks, then without it until SERVED_AFTER more calls were served; returns the final answers.
 */
async function loadWithFault(
  agents: Agent[],
  arm: () => Promise<() => Promise<void>>,
  met: () => boolean = () => true,
): Promise<Response[]> {
  let stopped = false;
  const running = Promise.all(agents.map((a) => load(a, () => stopped)));
  // A failed step stops the load too: left running, it would go on into the next test's money checks.
  try {
    const disarm = await arm();
    await moreAnswers(ANSWERS_UNDER_FAULT);
    await whenAnswers(met);
    await disarm();
    await moreAnswers(SERVED_AFTER, "200");
  } finally {
    stopped = true;
    await running.catch(() => undefined);
  }
  return (await running).flat();
}

describe("the database dropping every connection mid-load", () => {
  it("answers the calls caught mid-way 503 database_unavailable, charges nothing twice, loses nothing and recovers", async () => {
    const agents = await Promise.all(Array.from({ length: AGENTS }, newAgent));
    // Warm: the pool holds open connections, and the service's background work runs, before the drop.
    for (const agent of agents) expect((await prepaidCall(agent)).status).toBe(200);

    let stopped = false;
    const running = Promise.all(agents.map((a) => load(a, () => stopped)));
    // A failed check stops the load too: left running, it would go on into the next test's money checks.
    try {
      await moreAnswers(SERVED_BEFORE, "200");
      // A drop catches a call mid-way only if one had a query in flight then: drop again until one was caught.
      for (let n = 0; n < MIN_DROPS || (!answers.has("503 database_unavailable") && n < MAX_DROPS); n++) {
        if (n > 0) await servedSinceDrop(SERVED_BETWEEN_DROPS);
        expect(await dropServiceConnections()).toBeGreaterThan(0);
        drops++;
      }
      await servedSinceDrop(SERVED_AFTER);
    } finally {
      // Stopped and finished either way: a load left running would go on counting into the next test.
      stopped = true;
      await running.catch(() => undefined);
    }
    const finals = (await running).flat();
    console.log(
      `answers: ${JSON.stringify(Object.fromEntries(byKind))}${replayBodies.length ? `; replays after a 503: ${replayBodies.join(" | ")}` : ""}`,
    );

    expect(uncaught).toEqual([]);
    // Calls were caught mid-way, and every one of them answered the stable 503; in the end each was served.
    expect(answers.get("503 database_unavailable") ?? 0).toBeGreaterThan(0);
    expect([...answers.keys()].sort()).toEqual(expect.arrayContaining(["200"]));
    const allowed = [
      "prepaid 200",
      "prepaid 503 database_unavailable",
      "prepaid 503 receipt_log_unavailable",
      "challenge 402 payment_required",
      "challenge 503 database_unavailable",
    ];
    expectOnlyAnswers([
      ...allowed,
      "paid 200",
      "paid 503 database_unavailable",
      "paid 503 receipt_log_unavailable",
      "paid 409 payment_replay",
    ]);
    for (const res of finals) expect(res.status, await res.clone().text()).toBe(200);

    // Recovered on its own: fresh calls of each kind are served at once.
    for (const agent of agents) {
      const before = answers.get("503 database_unavailable") ?? 0;
      expect((await paidCall(agent)).status).toBe(200);
      expect((await prepaidCall(agent)).status).toBe(200);
      expect(answers.get("503 database_unavailable") ?? 0).toBe(before);
    }

    // The holds of prepaid calls cut off mid-way are released once the database is back, well inside their lease.
    await moneyHolds(agents, { refunded: false });
    expect(uncaught).toEqual([]);
  });
});

describe("faults at the call's record, mid-load", () => {
  it("refuses no call twice when the database refuses some records for good: each is refunded (paid) or released (prepaid), once", async () => {
    resetCounts();
    const db = stack.tdb.prisma;
    await db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS test_refuse_records (share double precision NOT NULL)`);
    await db.$executeRawUnsafe(
      `INSERT INTO test_refuse_records SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM test_refuse_records)`,
    );
    await db.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION test_refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF random() < (SELECT share FROM test_refuse_records) THEN
          RAISE EXCEPTION 'unsupported Unicode escape sequence' USING ERRCODE = '22P05';
        END IF;
        RETURN NEW;
      END $$`);
    await db.$executeRawUnsafe(
      `CREATE OR REPLACE TRIGGER test_refuse_record BEFORE INSERT ON inference_logs FOR EACH ROW EXECUTE FUNCTION test_refuse_record()`,
    );
    const agents = await Promise.all(Array.from({ length: AGENTS }, newAgent));
    const finals = await loadWithFault(
      agents,
      async () => {
        await db.$executeRawUnsafe(`UPDATE test_refuse_records SET share = ${REFUSED_SHARE}`);
        return async () => void (await db.$executeRawUnsafe(`UPDATE test_refuse_records SET share = 0`));
      },
      () => byKind.has("paid 500 call_not_recorded") && byKind.has("prepaid 500 call_not_recorded"),
    );
    console.log(`answers (records refused): ${JSON.stringify(Object.fromEntries(byKind))}`);
    expect(byKind.get("paid 500 call_not_recorded") ?? 0).toBeGreaterThan(0);
    expect(byKind.get("prepaid 500 call_not_recorded") ?? 0).toBeGreaterThan(0);
    const allowed = [
      "prepaid 200",
      "prepaid 500 call_not_recorded",
      "challenge 402 payment_required",
      "paid 200",
      "paid 500 call_not_recorded",
    ];
    expectOnlyAnswers(allowed);
    for (const res of finals) expect([200, 500]).toContain(res.status);
    // Each refunded payment's retry says so, and is never served.
    const refunded = await db.payment.findMany({ where: { status: "refunded" } });
    expect(refunded.length).toBe(byKind.get("paid 500 call_not_recorded"));
    await moneyHolds(agents, { refunded: true });
  });

  it("serves each call once with the record that committed when the connection drops before its reply", async () => {
    resetCounts();
    const agents = await Promise.all(Array.from({ length: AGENTS }, newAgent));
    let dropped = 0;
    let rule: { dropped(): number; stop(): void } | undefined;
    const finals = await loadWithFault(
      agents,
      async () => {
        rule = stack.dbProxy!.dropAfterCommit(/INSERT INTO inference_logs/, REPLIES_DROPPED);
        return async () => {
          dropped = rule!.dropped();
          rule!.stop();
        };
      },
      () => rule !== undefined && rule.dropped() > 0,
    );
    console.log(`answers (${dropped} replies lost after commit): ${JSON.stringify(Object.fromEntries(byKind))}`);
    expect(dropped).toBeGreaterThan(0);
    for (const res of finals) expect(res.status, await res.clone().text()).toBe(200);
    // A reply lost after its commit is found in line: the call answers 200 with that record, never a second one. The
    // proxy drops every run of the statement, so a call whose every try lost its reply answers 503 (a paid retry then
    // gets its kept answer; a prepaid call was charged once, with the receipt its error names).
    const allowed = [
      "prepaid 200",
      "prepaid 503 database_unavailable",
      "prepaid 503 receipt_log_unavailable",
      "challenge 402 payment_required",
      "challenge 503 database_unavailable",
    ];
    allowed.push(
      "paid 200",
      "paid 503 database_unavailable",
      "paid 503 receipt_log_unavailable",
      "paid 409 payment_replay",
    );
    expectOnlyAnswers(allowed);
    await moneyHolds(agents, { refunded: false });
  });
});
