// Pending settlements: a payment whose transaction was broadcast but whose confirmation was not seen within the settle
// wait. The row (status `pending`) holds the client's signed payload and what decides its expiry, so any instance,
// and one started after a restart, finishes it from the chain: landed → credited; failed or expired → failed (nothing
// moved); still able to land → the same transfer is broadcast again (Base: by the relayer, from its relay ledger).
// Every move out of `pending` is one conditional statement, so concurrent retries and sweepers on several instances
// resolve a payment once.
import "server-only";
import { isV1Payment } from "../x402/x402-v1";
import type { PaymentPayload } from "@x402/core/types";
import type { Runtime as AppContext } from "../context/runtime";
import type { DbClient, Payment } from "../db";
import { AppError } from "../errors";
import { familyAdapter } from "../chain/family-adapter";
import { creditAgent, type CreditOutcome } from "../ledger/credit-agent";
import { FAILED_ON_CHAIN, SETTLEMENT_EXPIRED } from "../ledger/payment-states";
import { moveOf } from "../ledger/payment-transition";
import {
  failPending,
  purgeKeptAnswers,
  readStalePending,
  renamePendingTransaction,
  takeRebroadcast,
} from "./payment-store";
import { logEvent } from "../log";
import { solanaFeeLamports } from "../facilitator/settlement-fee";
import type { SignetMetrics } from "../metrics/registry";
import { findPendingSettlement } from "../x402/find-landed-settlement";
import { eventNames } from "./payment-answers";
import { answerTopUp } from "./top-up-answer";

/** What a pending answer tells the client to wait before retrying: about one re-broadcast, seconds. */
const PENDING_RETRY_AFTER_SEC = 2;
/** A pending settlement is broadcast again at most this often, by whoever (a retry or a sweeper, any instance). */
const REBROADCAST_GAP_MS = 2_000;
/** How often each instance sweeps pending settlements nobody retries, and how many per sweep. */
const PENDING_SWEEP_EVERY_MS = 3_000;
const PENDING_SWEEP_BATCH = 20;

export type SettlementOutcome = "ok" | "recovered" | "failed" | "pending" | "expired" | "unknown";

/** Counts a settlement's outcome, and the Solana fee it cost when `paidFeeOf` is the payload whose transaction landed. */
export function countSettlement(
  m: SignetMetrics,
  purpose: string,
  caip2: string,
  outcome: SettlementOutcome,
  paidFeeOf: PaymentPayload | null,
): void {
  m.settlements.inc({ network: caip2, purpose, outcome });
  const fee = paidFeeOf ? solanaFeeLamports(paidFeeOf) : null;
  if (fee !== null) m.feeLamports.inc({ network: caip2 }, Number(fee));
}

/** The 502 a request gets while its payment's settlement is pending: retry the same request after `retry_after` s. */
export function settlementPendingError(transaction: string, caip2: string): AppError {
  return new AppError(
    "settlement_pending",
    "the payment's transaction was sent but its confirmation was not seen yet; retry the same request (same payment header) shortly",
    { transaction, network: caip2, retry_after: PENDING_RETRY_AFTER_SEC },
    { "Retry-After": String(PENDING_RETRY_AFTER_SEC) },
  );
}

/**
 * A pending payment found landed: pending → settled (a call whose retry is `waiting` and serves it now, as `attempt`),
 * unserved (a call payment nobody is waiting for: its retry serves it), or served (a top-up: the credit is the
 * purchase). A call: the credit and its hold, in one statement.
 */
export async function creditLandedPending(
  db: DbClient,
  payment: Payment,
  transaction: string,
  waiting: boolean,
  leaseMs: number,
  attempt: string | null = null,
): Promise<CreditOutcome> {
  const chat = payment.purpose === "call";
  const move = moveOf("pending", { type: "landed-late", purpose: chat ? "call" : "topup", waiting });
  return creditAgent(db, {
    kind: chat ? "payment_credit" : "topup_credit",
    // SECURITY: the beneficiary the claiming request named; never a later request's.
    agentPubkey: payment.beneficiary ?? payment.pendingBeneficiary ?? payment.payer,
    network: payment.network,
    units: payment.units,
    payment: { id: payment.id, txSignature: transaction, move, attempt },
    ...(chat ? { holdForCall: { holdId: payment.id, leaseMs } } : {}),
  });
}

export type PendingResolution =
  | { state: "landed"; transaction: string }
  | { state: "failed" }
  | { state: "expired" }
  /** Absent, and it can still land (broadcast again, if nobody did within REBROADCAST_GAP_MS). */
  | { state: "pending"; transaction: string }
  /** The chain could not be read. */
  | { state: "unknown"; transaction: string };

/**
 * Reads a pending payment's fate from the chain; when absent and still able to land, broadcasts the same transfer
 * again (Solana: the identical transaction; Base: nothing while the relay ledger holds the original transaction, which
 * the relayer broadcasts again itself, else the same authorization, which can be spent once) and, within `waitMs`,
 * waits for it. Never writes the row's status.
 */
export async function resolvePendingOnChain(
  ctx: AppContext,
  payment: Payment,
  payload: PaymentPayload,
  waitMs: number,
): Promise<PendingResolution> {
  const transaction = payment.txSignature ?? "";
  const network = ctx.config.networks.byCaip2(payment.network);
  if (!network) return { state: "unknown", transaction };
  const found = await findPendingSettlement(ctx.gateway.facilitator, network.id, payload).catch(() => null);
  if (!found) return { state: "unknown", transaction };
  if (found.state !== "absent") return found;
  const adapter = familyAdapter(network);
  if (adapter.awaitOwnRelay && (await relayedByLedger(ctx.db, transaction))) {
    await adapter.awaitOwnRelay(ctx.gateway.facilitator, network.id, transaction, waitMs);
    const after = await findPendingSettlement(ctx.gateway.facilitator, network.id, payload).catch(() => null);
    if (!after) return { state: "unknown", transaction };
    return after.state === "absent" ? { state: "pending", transaction } : after;
  }
  const gapMs = adapter.rebroadcastGapMs(REBROADCAST_GAP_MS, ctx.gateway.facilitator.confirmWaitMs);
  if (!(await takeRebroadcast(ctx.db, payment.id, gapMs))) return { state: "pending", transaction };
  // EVM sends the same authorization again through settle: a v2 payload carries the requirement it accepted; a v1 one
  // only its network, so its requirement is built again from what its claim recorded (the same amount and payee).
  const settleAgain = async () => {
    const requirements = isV1Payment(payload)
      ? await ctx.gateway.requirements(network.id, payment.units, payment.payTo)
      : payload.accepted;
    return ctx.gateway.settle(payload, requirements).catch(() => null);
  };
  const sent = await adapter.rebroadcast(
    ctx.gateway.facilitator,
    network.id,
    { payload, transaction, blockhash: payment.pendingBlockhash },
    waitMs,
    settleAgain,
  );
  if (sent.landed) return { state: "landed", transaction: sent.transaction };
  const current = sent.transaction;
  if (current !== transaction) await renamePendingTransaction(ctx.db, payment.id, current).catch(() => undefined);
  const after = await findPendingSettlement(ctx.gateway.facilitator, network.id, payload).catch(() => null);
  if (!after) return { state: "unknown", transaction: current };
  return after.state === "absent" ? { state: "pending", transaction: current } : after;
}

/** True when the relay ledger holds `transaction`: the relayer itself sees it mined, however often a node drops it. */
async function relayedByLedger(db: DbClient, transaction: string): Promise<boolean> {
  if (!transaction) return false;
  const rows = await db.$queryRaw<
    { one: number }[]
  >`SELECT 1 AS one FROM evm_relays WHERE tx_hash = ${transaction.toLowerCase()} LIMIT 1`;
  return rows.length > 0;
}

/**
 * Resolves pending payments nobody retries (the client gave up, or the instance that answered restarted). Landed: a
 * chat payment is credited with its hold reserved and left `unserved` for its retry; a top-up is credited. Failed or
 * expired: failed. Otherwise broadcast again. Safe to run on every instance at once.
 */
export async function sweepPendingSettlements(ctx: AppContext): Promise<void> {
  for (const payment of await readStalePending(ctx.db, REBROADCAST_GAP_MS, PENDING_SWEEP_BATCH, ctx.clock.now())) {
    if (!payment.pendingPayload) continue;
    const payload = payment.pendingPayload as unknown as PaymentPayload;
    const events = eventNames(payment.route);
    const found = await resolvePendingOnChain(ctx, payment, payload, 0);
    if (found.state === "landed") {
      const credited = await creditLandedPending(
        ctx.db,
        payment,
        found.transaction,
        false,
        ctx.config.PAYMENT_LEASE_MS,
      );
      if (credited.ok) {
        logEvent(ctx.log, events.settleRecovered, {
          payment_id: payment.id,
          network: payment.network,
          transaction: found.transaction,
          by: "sweeper",
        });
        countSettlement(ctx.metrics, payment.purpose, payment.network, "recovered", payload);
        // Nobody waited for this top-up: its answer is given now, and kept for the payer's retry.
        if (payment.purpose === "topup")
          await answerTopUp(
            ctx,
            { ...payment, status: "served", txSignature: found.transaction },
            credited.balanceUnits,
          );
      }
    } else if (found.state === "failed") {
      if (await failPending(ctx.db, payment.id, moveOf("pending", { type: "failed" }), FAILED_ON_CHAIN)) {
        logEvent(
          ctx.log,
          events.settleFailed,
          { payment_id: payment.id, network: payment.network, reason: "settlement_failed_on_chain", by: "sweeper" },
          "warn",
        );
        countSettlement(ctx.metrics, payment.purpose, payment.network, "failed", payload);
      }
    } else if (found.state === "expired") {
      if (await failPending(ctx.db, payment.id, moveOf("pending", { type: "expired" }), SETTLEMENT_EXPIRED)) {
        logEvent(
          ctx.log,
          events.settleExpired,
          { payment_id: payment.id, network: payment.network, by: "sweeper" },
          "warn",
        );
        countSettlement(ctx.metrics, payment.purpose, payment.network, "expired", null);
      }
    }
  }
}

/** Answers purged per sweep: a bounded statement, however many expired at once. */
const ANSWER_PURGE_BATCH = 500;

/**
 * Sweeps pending settlements every PENDING_SWEEP_EVERY_MS for as long as the process lives, one sweep at a time, and
 * drops served calls' answers kept past PAID_ANSWER_RETENTION_HOURS.
 */
export function startPendingSweeper(ctx: AppContext): () => void {
  let running = false;
  const retentionMs = ctx.config.PAID_ANSWER_RETENTION_HOURS * 3_600_000;
  const sweep = () => {
    if (running) return;
    running = true;
    sweepPendingSettlements(ctx)
      .then(() => purgeKeptAnswers(ctx.db, retentionMs, ANSWER_PURGE_BATCH))
      .catch((err: unknown) => ctx.log.warn({ err }, "could not sweep pending settlements"))
      .finally(() => {
        running = false;
      });
  };
  sweep();
  const timer = setInterval(sweep, PENDING_SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
