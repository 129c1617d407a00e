// The answers the payment state machine gives: refusals, replays, the 402 challenge to pay again, and the events and
// counts that go with them.
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import type { AppContext } from "../context/app-context";
import type { Payment } from "../db";
import { AppError, type X402V1Challenge } from "../errors";
import { solanaFeeLamports } from "../facilitator/settlement-fee";
import { logEvent, loggableError, type Logger } from "../log";
import { challengeHeaders } from "../x402/payment-headers";
import { toV1Requirements } from "../x402/x402-v1";
import { v1OutputSchema } from "../x402/bazaar-metadata";
import { paidRoute, paidRouteNamed } from "../x402/paid-routes";
import type { AdmitPaymentInput, PaidRequestOutcome } from "./paid-request-types";

export const refused = (error: AppError): PaidRequestOutcome => ({ kind: "refused", error });

export function replay(payment: Payment, message: string, headers: Record<string, string> = {}): PaidRequestOutcome {
  return {
    kind: "replay",
    error: new AppError(
      "payment_replay",
      message,
      payment.txSignature ? { tx_signature: payment.txSignature } : {},
      headers,
    ),
  };
}

/** This request is not the one the payment paid for: another body, network, route or beneficiary. Nothing moved. */
export function requestMismatch(log: Logger, input: AdmitPaymentInput, known: Payment): PaidRequestOutcome {
  logEvent(
    log,
    `${eventNames(input.route).prefix}.request_mismatch`,
    { payment_id: known.id, network: known.network, status: known.status },
    "warn",
  );
  return {
    kind: "replay",
    error: new AppError(
      "payment_request_mismatch",
      "this payment paid for another request: a retry must repeat the same route, body and network (and, for a top-up, the same amount and agent_pubkey); nothing was charged for this one",
    ),
  };
}

/**
 * Another payment of this payer already holds the client's payment id: this one is refused before it settles. The
 * first payment's transaction is named (the client is its payer) so it can find that call's receipt.
 */
export function paymentIdConflict(
  log: Logger,
  input: AdmitPaymentInput,
  id: string,
  owner: Payment,
): PaidRequestOutcome {
  logEvent(log, `${eventNames(input.route).prefix}.payment_id_conflict`, {
    existing_payment: owner.id,
    network: owner.network,
  });
  return {
    kind: "replay",
    error: new AppError(
      "payment_id_conflict",
      "this payment id belongs to another payment of this payer; nothing was charged for this one. A new payment needs a new id",
      { client_payment_id: id, ...(owner.txSignature ? { tx_signature: owner.txSignature } : {}) },
    ),
  };
}

/**
 * The payment events of a paid route (`chat.settle_ok`, `responses.settle_ok`, `credits.settle_ok`, …): its registry
 * row's prefix; a stored route no row has any more (a removed route's payment) logs under its own name.
 */
export function eventNames(route: string) {
  const named = paidRouteNamed(route);
  const prefix = named ? paidRoute(named).events : route;
  return {
    prefix,
    verifyFailed: `${prefix}.verify_failed`,
    settleOk: `${prefix}.settle_ok`,
    settleFailed: `${prefix}.settle_failed`,
    settleUnknown: `${prefix}.settle_unknown`,
    settlePending: `${prefix}.settle_pending`,
    settleExpired: `${prefix}.settle_expired`,
    settleRecovered: `${prefix}.settle_recovered`,
    settleReplay: `${prefix}.settle_replay`,
  };
}

/** The chain (or its RPC) could not be asked: the client's payment is not at fault. */
export function chainUnavailable(log: Logger, event: string, caip2: string, err: unknown): AppError {
  logEvent(
    log,
    event,
    {
      reason: "chain_unavailable",
      network: caip2,
      detail: String(err instanceof Error ? err.message : err).slice(0, 200),
    },
    "warn",
  );
  return new AppError(
    "chain_unavailable",
    "the chain could not be reached to verify the payment; nothing was charged, retry later",
  );
}

/**
 * Counts a failure for the dashboard in its (network, stage, reason, UTC hour) row: any number of bad payment headers
 * make a bounded number of rows. Never lets bookkeeping turn a 402 into a 500: a count that cannot be written is logged
 * and dropped.
 */
export async function recordFailure(
  ctx: AppContext,
  network: string,
  stage: "verify" | "settle",
  reason: string,
): Promise<void> {
  const now = ctx.clock.now();
  const hour = new Date(now - (now % 3_600_000));
  await ctx.db.$executeRaw`
    INSERT INTO payment_failure_counts (network, stage, reason, hour, count) VALUES (${network}, ${stage}, ${reason.slice(0, 100)}, ${hour}, 1)
    ON CONFLICT (network, stage, reason, hour) DO UPDATE SET count = payment_failure_counts.count + 1`.catch(
    (err: unknown) =>
      logEvent(ctx.log, "payment.failure_count_failed", { network, stage, reason, err: loggableError(err) }, "warn"),
  );
}

/**
 * Every 402 is `payment_required` with the challenge to pay again: x402 v2's in both challenge headers, x402 v1's in the
 * body (`x402Version: 1` and `accepts`, beside the error). What went wrong with a refused payment is its `reason` (a
 * stable value: malformed, requirements_mismatch, insufficient_balance, payment_invalid, a settlement reason…), so a
 * client needs one branch for "pay (again)".
 */
export async function paymentError(
  ctx: AppContext,
  input: AdmitPaymentInput,
  message: string,
  reason?: string,
  details: Record<string, unknown> = {},
): Promise<AppError> {
  const challenge = await ctx.gateway.paymentRequired(
    input.plan.requirements,
    { url: input.resourceUrl, description: input.description },
    reason ?? "payment_required",
  );
  ctx.metrics.paymentRequired.inc({ network: input.plan.requirements.network, reason: reason ?? "payment_required" });
  const offered = challenge.accepts[0]!;
  const v1: X402V1Challenge = {
    x402Version: 1,
    accepts: [
      toV1Requirements(ctx.config.networks, offered, {
        url: challenge.resource.url,
        description: challenge.resource.description ?? input.description,
        outputSchema: v1OutputSchema(input.route),
      }),
    ],
  };
  return new AppError(
    "payment_required",
    message,
    { ...details, ...(reason ? { reason } : {}) },
    challengeHeaders(challenge),
    v1,
  );
}

/** The Solana fee the fee payer paid for this settlement, for the settle events. */
export function feeField(payload: PaymentPayload): { fee_lamports?: string } {
  const fee = solanaFeeLamports(payload);
  return fee === null ? {} : { fee_lamports: fee.toString() };
}
