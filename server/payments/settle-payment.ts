// Settling a claimed payment: in its payer's lane (one settlement per paying account at a time, across instances), the
// facilitator sends it and waits for its confirmation; what the chain then says is recorded in one statement: landed
// → settled (a chat payment's credit and the call's hold) or served (a top-up); sent and not confirmed in time →
// pending; refused → failed; sent and never able to land → expired.
import "server-only";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { AppContext } from "../context/app-context";
import { crashPoint } from "../env/crash-point";
import type { Payment } from "../db";
import { AppError } from "../errors";
import { creditAgent } from "../ledger/credit-agent";
import { logEvent } from "../log";
import { timeStep } from "../metrics/registry";
import { classifyVerifyFailure } from "../x402/classify-verify-failure";
import { familyAdapter } from "../chain/family-adapter";
import { findLandedSettlement, findPendingSettlement } from "../x402/find-landed-settlement";
import { payingAccount } from "../x402/paying-account";
import type { AdmitPaymentInput, PaidRequestOutcome } from "./paid-request-types";
import { eventNames, feeField, paymentError, recordFailure, refused, replay } from "./payment-answers";
import { SETTLEMENT_EXPIRED } from "../ledger/payment-states";
import { moveOf } from "../ledger/payment-transition";
import { keepClaim, markFailed, markPending, type ClaimKeeper } from "./payment-store";
import { releaseIfDatabaseLost } from "./release-after-database-loss";
import { countSettlement, settlementPendingError } from "./pending-settlement";
import { noteLaneSend, takeSettlementLane, type Lane, type LaneAttempt } from "./settlement-lane";

/** The stock schemes' answer for a broadcast whose confirmation was not seen within the wait. */
const SETTLEMENT_PENDING = "settlement_pending";

/** A settlement's answer, and what its lane is released with. */
type SendResult = { result: PaidRequestOutcome; sent: boolean; failed: boolean };

/**
 * Settles a claimed payment in its payer's lane: one settlement per paying account at a time, across instances. When
 * another settlement of the same payer was sent since this one verified, the chain is asked again right before sending
 * (Solana: settle simulates afresh; Base: verify simulates the transfer), so a payer funded for one call cannot make the
 * facilitator send, and pay for, transactions that are bound to fail. Marks the claim failed (nothing moved) when the
 * payment is refused.
 */
export async function settleClaimed(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  verifiedAtMs: number,
  firstLaneAttempt?: LaneAttempt,
): Promise<PaidRequestOutcome> {
  const { plan } = input;
  const caip2 = ctx.config.networks.get(plan.network).caip2;
  const source = laneSource(caip2, payload, payment.payer);
  // SECURITY: a live settlement keeps its claim (and, once taken, its lane): only a dead server's claim is taken over.
  // Otherwise a retry arriving after PAYMENT_LEASE_MS would settle the same payment beside it, and could mark failed a
  // payment whose first transfer then lands.
  const keeper = keepClaim(ctx, payment, ctx.config.PAYMENT_LEASE_MS);
  try {
    return await settleInLane(ctx, input, payment, payload, matched, verifiedAtMs, source, keeper, firstLaneAttempt);
  } catch (err) {
    releaseIfDatabaseLost(ctx, payment, err);
    throw err;
  } finally {
    keeper.stop();
  }
}

async function settleInLane(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  verifiedAtMs: number,
  source: string,
  keeper: ClaimKeeper,
  firstLaneAttempt?: LaneAttempt,
): Promise<PaidRequestOutcome> {
  const caip2 = ctx.config.networks.get(input.plan.network).caip2;
  const taken = await takeSettlementLane(
    ctx.db,
    source,
    payment.id,
    verifiedAtMs,
    ctx.config.PAYMENT_LEASE_MS,
    ctx.clock,
    firstLaneAttempt,
    ctx.metrics.laneWaiting,
  );
  if (!taken.ok) {
    await markFailed(ctx.db, payment, moveOf("claimed", { type: "failed" }), taken.reason);
    logEvent(ctx.log, eventNames(input.route).settleFailed, { reason: taken.reason, network: caip2 }, "warn");
    const message =
      taken.reason === "payer_refused"
        ? "this payer's recent settlements kept failing; it is refused for a while, and nothing was charged"
        : "another payment of this payer is settling; nothing was charged, retry shortly";
    return refused(
      new AppError(
        "rate_limited",
        message,
        { reason: taken.reason },
        { "Retry-After": String(Math.ceil(taken.retryAfterMs / 1000)) },
      ),
    );
  }
  const lane = taken.lane;
  keeper.keepLane(source);
  let outcome: { result: PaidRequestOutcome; sent: boolean; failed: boolean } | undefined;
  try {
    outcome = await sendSettlement(ctx, input, payment, payload, matched, lane);
    return outcome.result;
  } finally {
    // A recorded settlement freed the lane in its credit's statement; every other path frees it here.
    await lane.release({ sent: outcome?.sent ?? true, failed: outcome?.failed ?? false }).then(
      (sentMs) => {
        if (sentMs !== null) noteLaneSend(ctx.state.laneSends, source, sentMs, ctx.clock);
      },
      (err: unknown) => {
        logEvent(ctx.log, "chat.lane_release_failed", { source, reason: String(err).slice(0, 200) }, "warn");
      },
    );
  }
}

async function sendSettlement(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  lane: Lane,
): Promise<SendResult> {
  const rechecked = lane.sentSinceVerify ? await recheckBeforeSend(ctx, input, payment, payload, matched, lane) : null;
  if (rechecked) return rechecked;
  return sendAndRecord(ctx, input, payment, payload, matched, lane);
}

/**
 * Another settlement of this payer was sent since this one verified: ask the chain again before sending (Solana: settle
 * simulates afresh; Base: verify simulates the transfer). Null when the settlement may go ahead; else its answer.
 */
async function recheckBeforeSend(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  lane: Lane,
): Promise<SendResult | null> {
  const { plan } = input;
  const events = eventNames(input.route);
  const caip2 = ctx.config.networks.get(plan.network).caip2;
  const recheck = await familyAdapter(ctx.config.networks.get(plan.network)).recheckBeforeSend(
    ctx.gateway.facilitator,
    payload,
    caip2,
    () => ctx.gateway.verify(payload, matched).catch(() => null),
  );
  if (recheck.proceed) return null;
  const { verdict } = recheck;
  // A refused verification is no proof that nothing moved: this authorization may be spent by this payment's own
  // earlier relay (a server that died after sending it). Ask the chain before saying nothing was charged.
  const landed = verdict
    ? await findLandedSettlement(ctx.gateway.facilitator, plan.network, payload).catch(() => null)
    : null;
  if (landed?.state === "landed") {
    logEvent(ctx.log, events.settleOk, {
      network: caip2,
      payer: payment.payer,
      transaction: landed.transaction,
      amount: plan.amountUnits.toString(),
      recovered: "recheck",
    });
    countSettlement(ctx.metrics, input.purpose, caip2, "recovered", null);
    return { result: await recordSettled(ctx, input, payment, landed.transaction, lane), sent: true, failed: false };
  }
  if (verdict && landed === null) {
    // The chain cannot say whether it moved: keep the claim (its lease makes a later retry resolve it).
    logEvent(
      ctx.log,
      events.settleUnknown,
      { reason: "recheck_unreadable", network: caip2, payment_id: payment.id },
      "warn",
    );
    countSettlement(ctx.metrics, input.purpose, caip2, "unknown", null);
    return {
      result: refused(
        new AppError(
          "chain_unavailable",
          "the payment's settlement could not be confirmed; retry the same request later",
          { reason: "recheck_unreadable" },
        ),
      ),
      sent: false,
      failed: false,
    };
  }
  const reason = verdict
    ? await classifyVerifyFailure(payload, verdict.invalidReason, undefined, verdict.invalidMessage)
    : "chain_unavailable";
  await markFailed(ctx.db, payment, moveOf("claimed", { type: "failed" }), reason);
  logEvent(ctx.log, events.settleFailed, { reason, network: caip2, stage: "recheck" }, "warn");
  countSettlement(ctx.metrics, input.purpose, caip2, verdict ? "failed" : "unknown", null);
  await recordFailure(ctx, caip2, "settle", reason);
  const error = verdict
    ? await paymentError(ctx, input, `the payment can no longer be settled: ${reason}; nothing was charged`, reason)
    : new AppError(
        "chain_unavailable",
        "the chain could not be reached to settle the payment; nothing was charged, retry later",
      );
  return { result: refused(error), sent: false, failed: verdict !== null };
}

/** Settles (the facilitator sends and waits for its confirmation) and records what the chain says happened. */
async function sendAndRecord(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  lane: Lane,
): Promise<SendResult> {
  const { plan } = input;
  const events = eventNames(input.route);
  const caip2 = ctx.config.networks.get(plan.network).caip2;
  let failure: string;
  // The transaction settle broadcast, if any; `pending` when its confirmation was not seen within the wait.
  let sent: string | null = null;
  let pending = false;
  try {
    const result = await timeStep(ctx.metrics, "settle", caip2, () => ctx.gateway.settle(payload, matched));
    if (result.success && result.transaction) {
      crashPoint(ctx.config, "after_settle");
      logEvent(ctx.log, events.settleOk, {
        network: caip2,
        payer: payment.payer,
        transaction: result.transaction,
        amount: plan.amountUnits.toString(),
        ...feeField(payload),
      });
      countSettlement(ctx.metrics, input.purpose, caip2, "ok", payload);
      return { result: await recordSettled(ctx, input, payment, result.transaction, lane), sent: true, failed: false };
    }
    failure = result.errorReason ?? "settlement_failed";
    sent = result.transaction || null;
    pending = failure === SETTLEMENT_PENDING && sent !== null;
  } catch {
    failure = "settlement_error";
  }
  // A refusal is not proof that nothing moved (a confirmation timeout, or the same transaction already landed by a
  // server that died): ask the chain before telling the client that nothing was charged.
  const landed = await findPendingSettlement(ctx.gateway.facilitator, plan.network, payload).catch(() => null);
  if (landed?.state === "landed") {
    logEvent(ctx.log, events.settleOk, {
      network: caip2,
      payer: payment.payer,
      transaction: landed.transaction,
      amount: plan.amountUnits.toString(),
      recovered: failure,
    });
    countSettlement(ctx.metrics, input.purpose, caip2, "recovered", null);
    return { result: await recordSettled(ctx, input, payment, landed.transaction, lane), sent: true, failed: false };
  }
  if (pending && sent && (landed === null || landed.state === "absent")) {
    return { result: await recordPending(ctx, input, payment, payload, sent), sent: true, failed: false };
  }
  if (landed === null) {
    // The chain cannot say: keep the claim (its lease makes a later retry resolve it) rather than risk a wrong answer.
    logEvent(ctx.log, events.settleUnknown, { reason: failure, network: caip2, payment_id: payment.id }, "warn");
    countSettlement(ctx.metrics, input.purpose, caip2, "unknown", null);
    return {
      result: refused(
        new AppError(
          "chain_unavailable",
          "the payment's settlement could not be confirmed; retry the same request later",
          { reason: failure },
        ),
      ),
      sent: true,
      failed: false,
    };
  }
  // A transaction sent and never seen whose blockhash (or validBefore) passed can never land: it expired.
  const expired = landed.state === "expired" && sent !== null;
  if (expired) failure = SETTLEMENT_EXPIRED;
  await markFailed(ctx.db, payment, moveOf("claimed", { type: expired ? "expired" : "failed" }), failure);
  // A transaction that landed and failed cost the fee payer its fee; one refused before sending cost nothing.
  logEvent(
    ctx.log,
    expired ? events.settleExpired : events.settleFailed,
    { reason: failure, network: caip2, ...(landed.state === "failed" ? feeField(payload) : {}) },
    "warn",
  );
  countSettlement(
    ctx.metrics,
    input.purpose,
    caip2,
    expired ? "expired" : "failed",
    landed.state === "failed" ? payload : null,
  );
  await recordFailure(ctx, caip2, "settle", failure);
  return {
    result: refused(await paymentError(ctx, input, "the payment could not be settled; nothing was charged", failure)),
    sent: landed.state === "failed",
    failed: true,
  };
}

/**
 * claimed → pending: the transaction went out and its confirmation was not seen in time. The client gets 502
 * settlement_pending with the transaction and when to retry; the row keeps what any instance needs to finish it.
 */
async function recordPending(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  transaction: string,
): Promise<PaidRequestOutcome> {
  const events = eventNames(input.route);
  const moved = await markPending(ctx.db, payment, moveOf("claimed", { type: "pending" }), {
    transaction,
    payload,
    beneficiary: payment.beneficiary,
  });
  if (!moved.ok) {
    if (moved.reason === "transaction_already_used") {
      await markFailed(ctx.db, payment, moveOf("claimed", { type: "failed" }), moved.reason);
      return {
        kind: "replay",
        error: new AppError("payment_replay", "this payment's transaction was already used", {
          tx_signature: transaction,
        }),
      };
    }
    return replay(payment, "this payment is already being processed");
  }
  logEvent(
    ctx.log,
    events.settlePending,
    {
      network: payment.network,
      payer: payment.payer,
      payment_id: payment.id,
      transaction,
      wait_ms: ctx.config.SETTLEMENT_CONFIRM_WAIT_MS,
    },
    "warn",
  );
  countSettlement(ctx.metrics, input.purpose, payment.network, "pending", null);
  return { kind: "pending", error: settlementPendingError(transaction, payment.network) };
}

/**
 * claimed → settled (a call: credit and hold in one statement) or → served (top-up: the credit is the purchase); the same
 * statement frees the payer's lane when the settlement ran in it. The same transaction can arrive under another payment
 * row (an encoding the key did not fold): that row is a replay.
 */
export async function recordSettled(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  transaction: string,
  lane?: Lane,
): Promise<PaidRequestOutcome> {
  const chat = input.purpose === "call";
  const credited = await creditAgent(ctx.db, {
    kind: chat ? "payment_credit" : "topup_credit",
    // SECURITY: the beneficiary the claiming request named, stored with the claim; never a later request's.
    agentPubkey: payment.beneficiary ?? payment.payer,
    network: payment.network,
    units: payment.units,
    payment: {
      id: payment.id,
      txSignature: transaction,
      move: moveOf("claimed", { type: "settled", purpose: input.purpose }),
      attempt: payment.attempt,
    },
    ...(chat ? { holdForCall: { holdId: payment.id, leaseMs: ctx.config.PAYMENT_LEASE_MS } } : {}),
    ...(lane ? { alongside: lane.releaseStatement({ sent: true, failed: false }) } : {}),
  });
  // Rolled back on a transaction already used: the caller's release frees the lane then.
  if (lane && (credited.ok || credited.reason !== "transaction_already_used")) lane.released();
  // The lane's release set its last send to the statement's now().
  if (lane && credited.ok) noteLaneSend(ctx.state.laneSends, lane.source, credited.atMs, ctx.clock);
  if (!credited.ok) {
    await markFailed(ctx.db, payment, moveOf("claimed", { type: "failed" }), credited.reason);
    logEvent(
      ctx.log,
      eventNames(input.route).settleReplay,
      { payment_id: payment.id, transaction, reason: credited.reason },
      "warn",
    );
    return {
      kind: "replay",
      error: new AppError("payment_replay", "this payment's transaction was already used", {
        tx_signature: transaction,
      }),
    };
  }
  crashPoint(ctx.config, "after_credit");
  return {
    kind: "settled",
    payment: { ...payment, status: "settled", txSignature: transaction },
    balanceUnits: credited.balanceUnits,
    pointsBefore: credited.points,
  };
}

/** The payer's settlement lane: its paying account (the token account or address that pays), else the payer. */
export function laneSource(caip2: string, payload: PaymentPayload, payer: string): string {
  return payingAccount(caip2, payload) ?? `payer:${caip2}:${payer}`;
}
