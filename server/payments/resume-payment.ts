// Resuming a payment seen before: only by the request that paid it (the same digest, the same network), on its own
// network's rules. A pending payment's fate is read from the chain; an unserved one is served once; a claim or a call
// whose server died is taken over by exactly one retry; a served one gives its stored answer again.
import "server-only";
import { randomUUID } from "node:crypto";
import type { PaymentPayload } from "@x402/core/types";
import type { AppContext } from "../context/app-context";
import { crashPoint } from "../env/crash-point";
import type { Payment } from "../db";
import { AppError } from "../errors";
import { logEvent } from "../log";
import { formatUnitsAsUsdc } from "../verify";
import { requireNetworkEnabled } from "../pipeline/network-gate";
import { findLandedSettlement } from "../x402/find-landed-settlement";
import type { AdmitPaymentInput, PaidRequestOutcome } from "./paid-request-types";
import { eventNames, feeField, paymentError, recordFailure, refused, replay, requestMismatch } from "./payment-answers";
import { FAILED_ON_CHAIN, SETTLEMENT_EXPIRED } from "../ledger/payment-states";
import { moveOf, movesOf } from "../ledger/payment-transition";
import { beginServingUnserved, failPending, markFailed, readPaymentById, takeOverStale } from "./payment-store";
import {
  countSettlement,
  creditLandedPending,
  resolvePendingOnChain,
  settlementPendingError,
} from "./pending-settlement";
import { recordSettled, settleClaimed } from "./settle-payment";

/** A payment seen before: its retry, its recovery, or a replay. */
export async function resumeKnown(
  ctx: AppContext,
  input: AdmitPaymentInput,
  known: Payment,
  payload: PaymentPayload,
): Promise<PaidRequestOutcome> {
  // SECURITY: a payment's transaction is public once it lands; only the request that paid (the same route, body,
  // network and beneficiary) may use it, whatever state it waits in. Nothing moves for any other.
  if (
    known.requestDigest === null ||
    known.requestDigest !== input.requestDigest ||
    known.network !== ctx.config.networks.get(input.plan.network).caip2
  ) {
    return requestMismatch(ctx.log, input, known);
  }
  // SECURITY: the kill switch and the allowlist apply to the payment's own network, as they did when it was claimed.
  try {
    requireNetworkEnabled(
      ctx.log,
      ctx.config.networks,
      input.state.settings,
      known.network,
      input.purpose === "call" ? "chat" : "credits",
    );
  } catch (err) {
    return refused(err as AppError);
  }
  const allowed = input.state.settings.allowedAgents;
  if (ctx.config.networks.get(input.plan.network).isMainnet && allowed.size > 0 && !allowed.has(known.payer)) {
    return refused(new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet"));
  }
  const leaseMs = ctx.config.PAYMENT_LEASE_MS;
  if (known.purpose !== input.purpose) return replay(known, "this payment was made for another route");
  if (known.status === "served" && known.txSignature !== null && (input.purpose === "topup" || known.answer !== null)) {
    // The same request again after it was served (its answer lost in transit): the stored answer, not a second call.
    logEvent(ctx.log, `${eventNames(input.route).prefix}.answer_replayed`, {
      payment_id: known.id,
      network: known.network,
    });
    return { kind: "answered", payment: { ...known, txSignature: known.txSignature } };
  }
  if (known.status === "refunded") return refundedAnswer(known);
  if (known.status === "pending") return resumePending(ctx, input, known, payload);
  if (known.status === "claimed") {
    // A claim older than its lease belongs to a server that died mid-settlement: finish it from the chain's answer.
    const attempt =
      ctx.clock.now() - known.updatedAt.getTime() >= leaseMs
        ? await takeOverStale(ctx.db, known.id, leaseMs, [moveOf("claimed", TAKEN_OVER)], ctx.clock.now())
        : null;
    if (attempt !== null) return recoverClaim(ctx, input, { ...known, attempt }, payload);
    return replay(known, "this payment is already being processed");
  }
  if (input.purpose === "topup") return replay(known, "this payment is already being processed");
  if (known.status === "unserved") {
    const attempt = await beginServingUnserved(ctx.db, known.id, moveOf("unserved", { type: "retried" }));
    if (attempt !== null)
      return {
        kind: "retry-unserved",
        payment: { ...known, status: "serving", attempt, txSignature: known.txSignature! },
      };
  }
  if ((known.status === "settled" || known.status === "serving") && ctx.state.records.has(known.id)) {
    // This process served it and its record waits for the database: write it now, then answer from what it left.
    if (await ctx.state.records.settle(known.id)) {
      const now = await readPaymentById(ctx.db, known.id);
      if (now && now.status !== known.status) return resumeKnown(ctx, input, now, payload);
    }
    return replay(
      known,
      "this payment's call was answered and its record is being written; send the same request again shortly",
      { "Retry-After": "1" },
    );
  }
  // Settled or serving, and its lease ran out: the server serving it died; serve it once now.
  if (known.status === "settled" || known.status === "serving") {
    const attempt = await takeOverStale(
      ctx.db,
      known.id,
      leaseMs,
      movesOf(TAKEN_OVER, ["settled", "serving"]),
      ctx.clock.now(),
    );
    if (attempt !== null) {
      logEvent(ctx.log, "chat.serve_recovered", { payment_id: known.id, network: known.network });
      return {
        kind: "retry-unserved",
        payment: { ...known, status: "serving", attempt, txSignature: known.txSignature! },
      };
    }
  }
  if (known.status === "served")
    return replay(
      known,
      "this payment was already used for a call, and its answer is no longer kept (its retention passed, or the client left its stream, which then had no receipt)",
    );
  return replay(known, "this payment is already being processed", { "Retry-After": "1" });
}

/** What a retry finds when the lease of the request holding a payment ran out. */
const TAKEN_OVER = { type: "lease-taken-over" } as const;

/** A payment refunded because its call could not be recorded: it buys nothing more, and says where its price went. */
function refundedAnswer(known: Payment): PaidRequestOutcome {
  return {
    kind: "replay",
    error: new AppError(
      "payment_refunded",
      "this payment's call could not be recorded, so it has no receipt; its price was returned to the payer's prepaid credit on this network (spend it with signed requests on /api/v1/inference, or pay again)",
      { tx_signature: known.txSignature, network: known.network, refunded_usdc: formatUnitsAsUsdc(known.units) },
    ),
  };
}

/**
 * A retry of a pending payment: its fate is read from the chain. Landed: credited (chat: with its hold) and served
 * now, once. Failed on chain or expired: failed, a clean 402 (nothing was charged; pay again). Still able to land:
 * broadcast again, and 502 settlement_pending again. Concurrent retries (any instance) move the row once; a loser
 * takes whatever the winner left.
 */
async function resumePending(
  ctx: AppContext,
  input: AdmitPaymentInput,
  known: Payment,
  payload: PaymentPayload,
): Promise<PaidRequestOutcome> {
  const events = eventNames(input.route);
  // The payload that was broadcast, as stored; the retry's may be another encoding of the same payment.
  const broadcast = (known.pendingPayload as unknown as PaymentPayload | null) ?? payload;
  const found = await resolvePendingOnChain(ctx, known, broadcast, ctx.config.SETTLEMENT_CONFIRM_WAIT_MS);
  if (found.state === "landed") {
    const attempt = randomUUID();
    const credited = await creditLandedPending(
      ctx.db,
      known,
      found.transaction,
      true,
      ctx.config.PAYMENT_LEASE_MS,
      attempt,
    );
    if (!credited.ok) return resumeMovedOn(ctx, input, known, payload);
    logEvent(ctx.log, events.settleRecovered, {
      network: known.network,
      payer: known.payer,
      payment_id: known.id,
      transaction: found.transaction,
      by: "retry",
    });
    countSettlement(ctx.metrics, input.purpose, known.network, "recovered", broadcast);
    crashPoint(ctx.config, "after_credit");
    return {
      kind: "settled",
      payment: { ...known, status: "settled", txSignature: found.transaction, attempt },
      balanceUnits: credited.balanceUnits,
    };
  }
  if (found.state === "failed" || found.state === "expired") {
    const reason = found.state === "expired" ? SETTLEMENT_EXPIRED : FAILED_ON_CHAIN;
    if (!(await failPending(ctx.db, known.id, moveOf("pending", { type: found.state }), reason)))
      return resumeMovedOn(ctx, input, known, payload);
    logEvent(
      ctx.log,
      found.state === "expired" ? events.settleExpired : events.settleFailed,
      {
        reason,
        network: known.network,
        payment_id: known.id,
        ...(found.state === "failed" ? feeField(broadcast) : {}),
      },
      "warn",
    );
    countSettlement(
      ctx.metrics,
      input.purpose,
      known.network,
      found.state,
      found.state === "failed" ? broadcast : null,
    );
    await recordFailure(ctx, known.network, "settle", reason);
    const message =
      found.state === "expired"
        ? "the payment's transaction expired before it landed; nothing was charged, pay again"
        : "the payment's settlement failed on chain; nothing was charged";
    return refused(await paymentError(ctx, input, message, reason));
  }
  return { kind: "pending", error: settlementPendingError(found.transaction, known.network) };
}

/** Another request (or the sweeper) moved a pending payment first: answer from the state it left. */
async function resumeMovedOn(
  ctx: AppContext,
  input: AdmitPaymentInput,
  known: Payment,
  payload: PaymentPayload,
): Promise<PaidRequestOutcome> {
  const now = await readPaymentById(ctx.db, known.id);
  if (!now || now.status === "pending")
    return { kind: "pending", error: settlementPendingError(known.txSignature ?? "", known.network) };
  if (now.status === "failed" || now.status === "expired") {
    const reason = now.failureReason ?? "settlement_failed";
    return refused(await paymentError(ctx, input, "the payment could not be settled; nothing was charged", reason));
  }
  return resumeKnown(ctx, input, now, payload);
}

/**
 * A claim whose lease ran out, now ours: if its settlement landed, record it; if the chain has no trace of it, settle
 * it now (the same Solana transaction, or the same EIP-3009 authorization: neither can move money twice).
 */
async function recoverClaim(
  ctx: AppContext,
  input: AdmitPaymentInput,
  known: Payment,
  payload: PaymentPayload,
): Promise<PaidRequestOutcome> {
  const matched = ctx.gateway.match(input.plan.requirements, payload);
  const landed = matched
    ? await findLandedSettlement(ctx.gateway.facilitator, input.plan.network, payload).catch(() => null)
    : null;
  if (landed === null || !matched) {
    // The chain could not be read (or the request names another plan): leave the claim for a later retry.
    return refused(
      new AppError("chain_unavailable", "this payment is being recovered; retry the same request shortly"),
    );
  }
  logEvent(ctx.log, `${eventNames(input.route).prefix}.claim_recovered`, {
    network: known.network,
    payment_id: known.id,
    found: landed.state,
  });
  if (landed.state === "landed") countSettlement(ctx.metrics, input.purpose, known.network, "recovered", null);
  if (landed.state === "landed") return recordSettled(ctx, input, known, landed.transaction);
  if (landed.state === "failed") {
    await markFailed(ctx.db, known, moveOf("claimed", { type: "failed" }), FAILED_ON_CHAIN);
    return refused(
      await paymentError(ctx, input, "the payment's settlement failed on chain; nothing was charged", FAILED_ON_CHAIN),
    );
  }
  // No verification of ours preceded this settlement: the lane re-checks the chain if anything of the payer was sent.
  return settleClaimed(ctx, input, known, payload, matched, 0);
}
