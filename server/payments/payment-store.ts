// The one writer of payment rows. Every change of `payments` is a statement here, and each status change is a move
// of the table in payment-states.ts (the database refuses any other); the ledger's statements that move a payment
// take their fragment from here. Expected outcomes are values, never thrown.
import "server-only";
import { randomUUID } from "node:crypto";
import type { PaymentPayload } from "@x402/core/types";
import { isUniqueViolation, Prisma, type DbClient, type Payment } from "../db";
import { hotExecute, hotQuery } from "../db/hot-query";
import { logEvent, type Logger } from "../log";
import type { Clock } from "../clock";
import { STORED_SETTINGS_JSON, storedSettingsAre, type StoredSettings } from "../settings/read-settings";
import { settlementExpiry } from "../x402/find-landed-settlement";
import type { PaymentPurpose, PaymentStatus } from "../ledger/payment-states";
import { fromStates, moveOf, targetOf, type Move } from "../ledger/payment-transition";
import {
  epochMsOf,
  laneAttempt,
  laneRefusedMsExpression,
  takeLaneStatement,
  type LaneAttempt,
} from "./settlement-lane";

export interface NewPayment {
  idempotencyKey: string;
  network: string;
  payer: string;
  payTo: string;
  units: bigint;
  purpose: PaymentPurpose;
  /** The paid route it is made on (a row of server/x402/paid-routes.ts). */
  route: string;
  /** The client's payment id (x402 payment-identifier), if it sent one. */
  clientPaymentId: string | null;
  requestDigest: string;
  beneficiary: string | null;
}

/** What the claim's statement found: the settings changed; or the payment claimed by this request; or not. */
export type FindOrClaimOutcome =
  | { stale: true; stored: StoredSettings }
  | {
      stale: false;
      claimed: true;
      payment: Payment;
      lane: LaneAttempt;
      /** The statement's now(), epoch ms (µs precision). */ nowMs: number;
      /** When its answer came back (the clock's monotonic()). */ answeredAt: number;
    }
  /** Not claimed: the payment if seen before; the payer's other payment holding the client's payment id, if any. */
  | { stale: false; claimed: false; existing: Payment | null; conflict: Payment | null };

/**
 * In one statement: the stored settings, checked against `expected`; the payment under `key`, if any; and, when
 * `claim` is given and the settings are unchanged, → claimed and the payer's settlement lane tried for it. Exactly one
 * of any number of concurrent claims of one key wins; a failed payment may be claimed again, unless it expired (its
 * transfer can never land). Only the winner tries the lane.
 */
export async function findOrClaimPayment(
  db: DbClient,
  input: {
    key: string;
    expected: StoredSettings;
    claim: { payment: NewPayment; source: string } | null;
    leaseMs: number;
    clock: Clock;
  },
): Promise<FindOrClaimOutcome> {
  const p = input.claim?.payment ?? NO_CLAIM;
  const source = input.claim?.source ?? "";
  const id = p.clientPaymentId;
  let rows;
  try {
    // SECURITY: the claim is taken before the first await that moves money; the same statement tries the payer's lane,
    // and binds the client's payment id, unless another payment of the payer holds it.
    rows = await hotQuery<{
      current: boolean;
      stored: StoredSettings;
      now_ms: number;
      payment: PaymentJson | null;
      existing: PaymentJson | null;
      id_owner: PaymentJson | null;
      taken: bigint;
      last_sent_ms: number | null;
      refused_ms: number | null;
    }>(
      db,
      Prisma.sql`
      WITH stored AS (
        SELECT ${STORED_SETTINGS_JSON} AS settings
      ), current AS (
        SELECT ${storedSettingsAre(input.expected, Prisma.sql`(SELECT settings FROM stored)`)} AS yes
      ), claimed AS (
        INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, route, status, updated_at, client_payment_id, request_digest, beneficiary, attempt)
        SELECT ${randomUUID()}::uuid, ${input.key}, ${p.network}, ${p.payer}, ${p.payTo}, ${p.units}, ${p.purpose}, ${p.route}, ${RECLAIM.to}, now(), ${id}::text,
               ${p.requestDigest}, ${p.beneficiary}::text, ${randomUUID()}::uuid
        FROM current WHERE current.yes AND ${input.claim !== null}
          AND (${id}::text IS NULL OR NOT EXISTS (SELECT 1 FROM payments WHERE payer = ${p.payer} AND client_payment_id = ${id}::text AND payload_hash <> ${input.key}))
        ON CONFLICT (payload_hash) DO UPDATE SET status = EXCLUDED.status, failure_reason = NULL, updated_at = now(),
               client_payment_id = EXCLUDED.client_payment_id, request_digest = EXCLUDED.request_digest, beneficiary = EXCLUDED.beneficiary,
               network = EXCLUDED.network, pay_to = EXCLUDED.pay_to, units = EXCLUDED.units, purpose = EXCLUDED.purpose, route = EXCLUDED.route, attempt = EXCLUDED.attempt
          WHERE payments.status = ${RECLAIM.from}
        RETURNING id, ${PAYMENT_JSON} AS payment
      ), lane AS (${takeLaneStatement(source, Prisma.sql`SELECT id FROM claimed`, input.leaseMs)})
      SELECT (SELECT yes FROM current) AS current, (SELECT settings FROM stored) AS stored, ${epochMsOf(Prisma.raw("now()"))} AS now_ms,
             (SELECT payment FROM claimed) AS payment, (SELECT count(*) FROM lane) AS taken, (SELECT last_sent_ms FROM lane) AS last_sent_ms,
             ${laneRefusedMsExpression(source)} AS refused_ms,
             (SELECT ${PAYMENT_JSON} FROM payments WHERE payload_hash = ${input.key}) AS existing,
             (SELECT ${PAYMENT_JSON} FROM payments
               WHERE ${id}::text IS NOT NULL AND payer = ${p.payer} AND client_payment_id = ${id}::text AND payload_hash <> ${input.key}) AS id_owner`,
    );
  } catch (err) {
    // SECURITY: two payments under one id at once: the unique index lets one commit; this one claimed nothing.
    if (id === null || !isUniqueViolation(err)) throw err;
    const owner = await db.payment.findFirst({
      where: { payer: p.payer, clientPaymentId: id, NOT: { idempotencyKey: input.key } },
    });
    if (!owner) throw err;
    return { stale: false, claimed: false, existing: null, conflict: owner };
  }
  const answeredAt = input.clock.monotonic();
  const row = rows[0]!;
  if (!row.current) return { stale: true, stored: row.stored };
  if (row.payment)
    return {
      stale: false,
      claimed: true,
      payment: paymentFromJson(row.payment),
      lane: laneAttempt(row),
      nowMs: Number(row.now_ms),
      answeredAt,
    };
  return {
    stale: false,
    claimed: false,
    existing: row.existing ? paymentFromJson(row.existing) : null,
    conflict: row.id_owner ? paymentFromJson(row.id_owner) : null,
  };
}

/** A claim's move over a payment that failed (a new payment is inserted in the state it moves to). */
const RECLAIM = moveOf("failed", { type: "claim" });

/** The claim's parameters when none is asked for: the INSERT never runs. */
const NO_CLAIM: NewPayment = {
  idempotencyKey: "",
  network: "",
  payer: "",
  payTo: "",
  units: 0n,
  purpose: "call",
  route: "chat",
  clientPaymentId: null,
  requestDigest: "",
  beneficiary: null,
};

/** Keeps a settling claim's lease, and its lane's hold once taken, until stopped. */
export interface ClaimKeeper {
  keepLane(source: string): void;
  stop(): void;
}

/** A payment as the request that holds it knows it: its id, and the attempt its claim or takeover made it. */
export type HeldPayment = Pick<Payment, "id" | "attempt">;

/** Renews `payment`'s claim (and its lane) every third of `leaseMs`, one statement a round, until stopped. */
export function keepClaim(ctx: { db: DbClient; log: Logger }, payment: HeldPayment, leaseMs: number): ClaimKeeper {
  let laneSource: string | null = null;
  const timer = setInterval(
    () => {
      renewClaim(ctx.db, payment, laneSource, leaseMs).catch((err: unknown) =>
        logEvent(
          ctx.log,
          "payment.claim_renew_failed",
          { payment_id: payment.id, reason: String(err).slice(0, 200) },
          "warn",
        ),
      );
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref?.();
  return {
    keepLane: (source) => {
      laneSource = source;
    },
    stop: () => clearInterval(timer),
  };
}

/** claimed (still, by this attempt) → its lease renewed; the lane it holds, if any, held for another lease. */
async function renewClaim(
  db: DbClient,
  payment: HeldPayment,
  laneSource: string | null,
  leaseMs: number,
): Promise<void> {
  await hotExecute(
    db,
    Prisma.sql`
    WITH claim AS (
      UPDATE payments SET updated_at = now()
      WHERE id = ${payment.id}::uuid AND status = ${"claimed" satisfies PaymentStatus} AND attempt IS NOT DISTINCT FROM ${payment.attempt}::uuid RETURNING id
    )
    UPDATE settlement_lanes SET held_until = now() + make_interval(secs => ${leaseMs}::double precision / 1000)
    WHERE ${laneSource}::text IS NOT NULL AND source = ${laneSource} AND holder = ${payment.id}::uuid`,
  );
}

/**
 * `move` (claimed → failed: settlement was refused, or its transaction belongs to another payment; claimed → expired:
 * it was sent and can never land), by the attempt that holds the claim. Nothing moved, so the client's payment id is
 * free again for the payer's next payment.
 */
export async function markFailed(
  db: DbClient,
  payment: HeldPayment,
  move: Move<"claimed">,
  reason: string,
): Promise<void> {
  await db.payment.updateMany({
    where: { id: payment.id, status: move.from, attempt: payment.attempt },
    data: { status: move.to, failureReason: reason.slice(0, 200), clientPaymentId: null },
  });
}

/**
 * `moves` (settled | serving → unserved), by the attempt that holds the payment: the call ended before an answer; the
 * hold stays reserved, and one retry may serve it.
 */
export async function markUnserved(
  db: DbClient,
  payment: HeldPayment,
  moves: readonly Move[],
  reason: string,
): Promise<void> {
  await db.payment.updateMany({
    where: { id: payment.id, status: { in: fromStates(moves) }, attempt: payment.attempt },
    data: { status: targetOf(moves), failureReason: reason.slice(0, 200) },
  });
}

/** `move` (unserved → serving); the new attempt for exactly one of concurrent retries, null for the others. */
export async function beginServingUnserved(
  db: DbClient,
  paymentId: string,
  move: Move<"unserved">,
): Promise<string | null> {
  const attempt = randomUUID();
  const taken = await db.payment.updateMany({
    where: { id: paymentId, status: move.from },
    data: { status: move.to, attempt },
  });
  return taken.count === 1 ? attempt : null;
}

/**
 * Takes over a row in `from` whose lease ran out by `nowMs` (the runtime clock's time), refreshing the lease; the new
 * attempt for exactly one of concurrent takers, null for the others. The attempt it replaces can write nothing more.
 */
export async function takeOverStale(
  db: DbClient,
  paymentId: string,
  leaseMs: number,
  moves: readonly Move[],
  nowMs: number,
): Promise<string | null> {
  const to = targetOf(moves);
  const attempt = randomUUID();
  const taken = await db.payment.updateMany({
    where: { id: paymentId, status: { in: fromStates(moves) }, updatedAt: { lt: new Date(nowMs - leaseMs) } },
    data: { updatedAt: new Date(nowMs), status: to, attempt },
  });
  return taken.count === 1 ? attempt : null;
}

/** A payments row as one JSON value (its own columns, unqualified), for a raw statement that reads or returns one. */
const PAYMENT_JSON = Prisma.sql`json_build_object(
  'id', id, 'idempotencyKey', payload_hash, 'txSignature', tx_signature, 'network', network, 'payer', payer,
  'payTo', pay_to, 'units', units::text, 'purpose', purpose, 'route', route, 'status', status, 'failureReason', failure_reason,
  'inferenceId', inference_id, 'createdAt', created_at, 'updatedAt', updated_at,
  'pendingPayload', pending_payload, 'pendingBlockhash', pending_blockhash, 'pendingValidBefore', pending_valid_before,
  'pendingBeneficiary', pending_beneficiary, 'clientPaymentId', client_payment_id, 'requestDigest', request_digest,
  'beneficiary', beneficiary, 'answer', answer, 'attempt', attempt)`;

function paymentFromJson(p: PaymentJson): Payment {
  return {
    ...p,
    units: BigInt(p.units),
    createdAt: new Date(p.createdAt),
    updatedAt: new Date(p.updatedAt),
    pendingValidBefore: p.pendingValidBefore ? new Date(p.pendingValidBefore) : null,
  };
}

type PaymentJson = Omit<Payment, "units" | "createdAt" | "updatedAt" | "pendingValidBefore"> & {
  units: string;
  createdAt: string;
  updatedAt: string;
  pendingValidBefore: string | null;
};

/**
 * `move` (claimed → pending), by the attempt that holds the claim, storing what recovery needs. False when the row was
 * not this attempt's claim any more, or when the transaction is already another payment's (a replay under another
 * encoding).
 */
export async function markPending(
  db: DbClient,
  payment: HeldPayment,
  move: Move<"claimed">,
  facts: { transaction: string; payload: PaymentPayload; beneficiary: string | null },
): Promise<{ ok: true } | { ok: false; reason: "payment_not_claimed" | "transaction_already_used" }> {
  const { blockhash, validBefore } = settlementExpiry(facts.payload);
  try {
    const moved = await db.$executeRaw`
      UPDATE payments SET status = ${move.to}, tx_signature = ${facts.transaction}, updated_at = now(),
        pending_payload = ${JSON.stringify(facts.payload)}::jsonb, pending_blockhash = ${blockhash},
        pending_valid_before = ${validBefore}, pending_beneficiary = ${facts.beneficiary}
      WHERE id = ${payment.id}::uuid AND status = ${move.from} AND attempt IS NOT DISTINCT FROM ${payment.attempt}::uuid`;
    return moved === 1 ? { ok: true } : { ok: false, reason: "payment_not_claimed" };
  } catch (err) {
    if (isUniqueViolation(err)) return { ok: false, reason: "transaction_already_used" };
    throw err;
  }
}

/**
 * `move` (pending → failed: the transfer failed on chain; pending → expired: it can never land). Nothing moved; the
 * payload is dropped and the client's payment id is free again for the payer's next payment.
 */
export async function failPending(
  db: DbClient,
  paymentId: string,
  move: Move<"pending">,
  reason: string,
): Promise<boolean> {
  const moved = await db.$executeRaw`
    UPDATE payments SET status = ${move.to}, failure_reason = ${reason.slice(0, 200)}, updated_at = now(), client_payment_id = NULL,
      pending_payload = NULL, pending_blockhash = NULL, pending_valid_before = NULL, pending_beneficiary = NULL
    WHERE id = ${paymentId}::uuid AND status = ${move.from}`;
  return moved === 1;
}

/** Takes the right to broadcast a pending payment again; true for one taker per `gapMs`, across instances. */
export async function takeRebroadcast(db: DbClient, paymentId: string, gapMs: number): Promise<boolean> {
  const taken = await db.$executeRaw`
    UPDATE payments SET updated_at = now()
    WHERE id = ${paymentId}::uuid AND status = ${"pending" satisfies PaymentStatus} AND updated_at < now() - make_interval(secs => ${gapMs}::double precision / 1000)`;
  return taken === 1;
}

/** A pending Base payment's authorization went out in another transaction: the row names the one to look for. */
export async function renamePendingTransaction(db: DbClient, paymentId: string, transaction: string): Promise<void> {
  await db.$executeRaw`UPDATE payments SET tx_signature = ${transaction} WHERE id = ${paymentId}::uuid AND status = ${"pending" satisfies PaymentStatus}`;
}

/** Pending payments nobody moved for `gapMs`, oldest first: the sweeper's work. */
export async function readStalePending(db: DbClient, gapMs: number, limit: number, nowMs: number): Promise<Payment[]> {
  return db.payment.findMany({
    where: { status: "pending" satisfies PaymentStatus, updatedAt: { lt: new Date(nowMs - gapMs) } },
    orderBy: { updatedAt: "asc" },
    take: limit,
  });
}

/** Drops served calls' answers kept longer than `retentionMs` (a bounded batch); returns how many. */
export async function purgeKeptAnswers(db: DbClient, retentionMs: number, limit: number): Promise<number> {
  return db.$executeRaw`
    UPDATE payments SET answer = NULL
    WHERE id IN (SELECT id FROM payments WHERE answer IS NOT NULL AND updated_at < now() - make_interval(secs => ${retentionMs}::double precision / 1000) LIMIT ${limit})`;
}

/** A top-up's first answer, kept on its served payment for the payer's repeat (once: a kept answer never changes). */
export async function keepTopUpAnswer(db: DbClient, paymentId: string, answer: string): Promise<void> {
  await db.$executeRaw`UPDATE payments SET answer = ${answer} WHERE id = ${paymentId}::uuid AND status = ${"served" satisfies PaymentStatus} AND answer IS NULL`;
}

/** The payment under an idempotency key, if any. */
export async function readPaymentByKey(db: DbClient, key: string): Promise<Payment | null> {
  return db.payment.findUnique({ where: { idempotencyKey: key } });
}

/** The payment with this id, as it is now. */
export async function readPaymentById(db: DbClient, id: string): Promise<Payment | null> {
  return db.payment.findUnique({ where: { id } });
}

/**
 * A request that held the payment stopped on a lost database before its upstream answered (its answer was 503
 * database_unavailable): the payment is handed to the retry of the request that paid, without waiting out its lease,
 * by `moves`. A move to the same state ends its lease at once (a claim: the retry takes it over and asks the chain what
 * moved); a move to another state records why (a settled or serving call becomes unserved: its hold stays reserved,
 * and the retry serves it once). Only while `payment`'s attempt still holds it: a payment another request took over
 * since, or that moved on, is left alone.
 */
export async function releaseAfterDatabaseLoss(
  db: DbClient,
  payment: HeldPayment,
  moves: readonly Move[],
): Promise<number> {
  const leaseEnds = fromStates(moves.filter((m) => m.to === m.from));
  const moving = moves.filter((m) => m.to !== m.from);
  const to = Prisma.join(
    moves.map((m) => Prisma.sql`WHEN ${m.from} THEN ${m.to}`),
    " ",
  );
  return db.$executeRaw`
    UPDATE payments SET
      status = CASE status ${to} ELSE status END,
      failure_reason = ${whenIn(fromStates(moving), Prisma.sql`'database_unavailable'`, Prisma.sql`failure_reason`)},
      updated_at = ${whenIn(leaseEnds, Prisma.sql`to_timestamp(0)`, Prisma.sql`now()`)}
    WHERE id = ${payment.id}::uuid AND status IN (${Prisma.join(fromStates(moves))}) AND attempt IS NOT DISTINCT FROM ${payment.attempt}::uuid`;
}

/** `then` for a row in one of `states`, else `otherwise`, as one SQL expression. */
function whenIn(states: readonly PaymentStatus[], then: Prisma.Sql, otherwise: Prisma.Sql): Prisma.Sql {
  return states.length === 0
    ? otherwise
    : Prisma.sql`CASE WHEN status IN (${Prisma.join(states)}) THEN ${then} ELSE ${otherwise} END`;
}
