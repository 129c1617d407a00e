// The paid-request state machine: everything that happens to an x402 payment, in one module.
//
//   claimed ──settle──▶ settled ──serve──▶ serving ──capture──▶ served
//      │  ╲                   ▲  ╲                │
//      │   ╲                  │   ╲──upstream failed──▶ unserved ──retry──▶ serving
//      │    ╲──not confirmed──▶ pending ──landed, nobody waiting (sweeper)──▶ unserved (top-up: served)
//      │        in time          │  ╲──landed, on a retry──▶ settled (top-up: served)
//      ▼                         │
//    failed ◀──refused───────────┴──failed on chain, or expired (blockhash / validBefore passed, never landed)
//
// - claimed: the idempotency key is ours (unique), before the first await that moves money. A client's own payment id
//   (x402 payment-identifier) is bound to the payment in the same statement, unique per payer: another payment of the
//   payer under that id is refused (409 payment_id_conflict) before anything settles.
// - settled: the transfer landed; ONE statement credits the payer and reserves the whole credit as the call's hold
//   (a top-up is credited and is `served` at once: the credit is what it bought).
// - serving / unserved: the hold stays reserved for this payment; only a retry with the same payment can spend it.
// - pending: the transaction was broadcast but its confirmation was not seen within SETTLEMENT_CONFIRM_WAIT_MS; the
//   request answers 502 settlement_pending. The row keeps the client's signed payload and what decides expiry, so a
//   retry or the sweeper on any instance (pending-settlement.ts) finishes it from the chain, re-broadcasting the same
//   transfer while it can still land. Nothing is charged without a credit, nor credited without a landed transfer.
// - failed: settlement was refused and nothing moved; the same payment may be claimed again.
// A claimed, settled or serving row whose lease (PAYMENT_LEASE_MS since its last update) ran out belongs to a server
// that died; exactly one retry takes it over and finishes it from the chain's answer.
//
// Expected outcomes are values (`PaidRequestOutcome`), never thrown; every transition is one statement.
import "server-only";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ensureDepositReady, type AppContext } from "../app-context";
import { NETWORKS, type NetworkId } from "../chain/networks";
import { crashPoint } from "../chaos/crash-point";
import { randomUUID } from "node:crypto";
import { isUniqueViolation, Prisma, type DbClient, type Payment } from "../db";
import { config } from "../env";
import { AppError } from "../errors";
import { creditAgent } from "../ledger/credit-agent";
import { logEvent } from "../log";
import { requireNetworkEnabled } from "../pipeline/network-gate";
import { lastStoredSettings, readStoredSettings, rememberStoredSettings, settingsFromStored, STORED_SETTINGS_JSON, storedSettingsAre, type StoredSettings } from "../settings/read-settings";
import type { Settings } from "../settings/setting-definitions";
import { CHAIN_UNAVAILABLE } from "../facilitator/chain-unavailable";
import { classifyVerifyFailure } from "../x402/classify-verify-failure";
import { depositAddressFor } from "../x402/deposit-address";
import { findLandedSettlement, findPendingSettlement } from "../x402/find-landed-settlement";
import { paymentIdempotencyKey } from "../x402/idempotency-key";
import { readPaymentId } from "../x402/payment-id";
import { payingAccount } from "../x402/paying-account";
import { solanaFeeLamports } from "../facilitator/settlement-fee";
import { metrics, timeStep } from "../metrics/registry";
import { epochMsOf, laneAttempt, laneRefusedMsExpression, takeLaneStatement, takeSettlementLane, type Lane, type LaneAttempt } from "./settlement-lane";
import { countSettlement, creditLandedPending, failPending, markPending, resolvePendingOnChain, settlementPendingError } from "./pending-settlement";

/** The stock schemes' answer for a broadcast whose confirmation was not seen within the wait. */
const SETTLEMENT_PENDING = "settlement_pending";
/** Why a pending payment failed: its transfer can never land (blockhash expired / validBefore passed, never spent). */
const SETTLEMENT_EXPIRED = "settlement_expired";
import { challengeHeaders, decodePaymentHeader, readPaymentHeader, type DecodedPayment } from "../x402/payment-headers";
import { hotExecute, hotQuery } from "../db/hot-query";

export type PaymentStatus = "claimed" | "pending" | "settled" | "serving" | "served" | "unserved" | "failed";
export type PaymentPurpose = "chat" | "topup";

/** A payment whose transfer landed and whose hold is reserved for the call it pays for. */
export type SettledPayment = Payment & { txSignature: string; status: "settled" | "serving" };

export type PaidRequestOutcome =
  /** No payment header: the 402 challenge. */
  | { kind: "challenge"; error: AppError }
  /** The payment cannot buy this call (invalid, refused by the chain, not allowed, the chain unreachable). */
  | { kind: "refused"; error: AppError }
  /** The payment was used already, or is being used by another request right now. */
  | { kind: "replay"; error: AppError }
  /** The settlement was broadcast and its confirmation not seen yet (502 settlement_pending): retry the same request. */
  | { kind: "pending"; error: AppError }
  /** A settled payment whose call was not served (the upstream failed, or its server died): serve it now, once. */
  | { kind: "retry-unserved"; payment: SettledPayment }
  /**
   * The same request with the same payment, already served: its stored answer is given again (a chat call's completion
   * body, when still kept), never a second service.
   */
  | { kind: "answered"; payment: Payment & { txSignature: string } }
  /** Settled just now; for a chat payment, its hold is reserved; for a top-up, the credit is the whole purchase. */
  | { kind: "settled"; payment: SettledPayment; balanceUnits: bigint; /** The agent's points as the credit read them, when it did. */ pointsBefore?: number }
  /** The settings changed since the request was planned: nothing was taken; plan it again with `replan`. */
  | { kind: "stale-settings"; replan: Replan };

export interface PaymentPlan {
  network: NetworkId;
  requirements: PaymentRequirements;
  payTo: string;
  amountUnits: bigint;
}

/**
 * What a paid route plans a request from: the request's payment header, read and decoded once, with its idempotency
 * key; and the settings. A challenge or a refused header is answered from settings read now; a payment is planned from
 * the settings this process saw last, and its claim's statement takes the claim only while those are still the stored
 * ones (otherwise the request is planned again: `stale-settings`). A payment's settings read, lookup, claim and lane
 * are then one statement.
 */
export interface PaidRequestState {
  settings: Settings;
  /** The stored settings `settings` were worked out from. */
  stored: StoredSettings;
  /** How many times this request was planned again because the settings changed under it. */
  replans: number;
  /**
   * True when `settings` are this process's guess: a refusal worked out from them is not the service's answer until
   * the stored settings confirm it (replanWithStoredSettings).
   */
  guessed: boolean;
  /** Null when the request carries no payment header. */
  payment: null | (DecodedPayment & { ok: false }) | { ok: true; payload: PaymentPayload; key: string };
}

/** The settings a request is planned again with after they changed under it. */
export interface Replan {
  stored: StoredSettings;
  replans: number;
}

/** Settings changes a request may meet before it is refused (retry): each costs a verification. */
const MAX_REPLANS = 3;

export async function readPaidRequestState(ctx: AppContext, headers: Headers, replan?: Replan): Promise<PaidRequestState> {
  const header = readPaymentHeader(headers);
  const decoded = header === null ? null : decodePaymentHeader(header);
  const guess = replan ? { value: replan.stored } : decoded?.ok ? lastStoredSettings() : undefined;
  const stored = guess ? guess.value : await readStoredSettings(ctx.db);
  const settings = settingsFromStored(stored);
  const payment = decoded?.ok ? { ok: true as const, payload: decoded.payload, key: paymentIdempotencyKey(decoded.payload) } : decoded;
  return { settings, stored, replans: replan?.replans ?? 0, guessed: guess !== undefined && replan === undefined, payment };
}

/** The settings read now, to plan again a request whose guessed settings refused it before its claim's statement. */
export async function replanWithStoredSettings(ctx: AppContext, state: PaidRequestState): Promise<Replan> {
  return { stored: await readStoredSettings(ctx.db), replans: state.replans };
}

/** Builds the requirement for `amountUnits` on a network already admitted (kill switch checked). */
export async function planPayment(ctx: AppContext, settings: Settings, network: NetworkId, amountUnits: bigint): Promise<PaymentPlan> {
  const payTo = depositAddressFor(ctx, settings, network);
  if (NETWORKS[network].family === "svm") {
    await ensureDepositReady(ctx.gateway, network, payTo).catch(() => {
      throw new AppError("chain_unavailable", `the ${NETWORKS[network].label} RPC could not be reached`);
    });
  }
  const requirements = await ctx.gateway.requirements(network, amountUnits, payTo);
  return { network, requirements, payTo, amountUnits };
}

export interface AdmitPaymentInput {
  /** From readPaidRequestState, on the same request. */
  state: PaidRequestState;
  plan: PaymentPlan;
  resourceUrl: string;
  description: string;
  purpose: PaymentPurpose;
  /** What this request buys (request-digest.ts): a payment claimed by another request serves only that one. */
  requestDigest: string;
  /** Who the credit goes to; the verified payer when absent. */
  beneficiary?: string;
}

/** Takes the payment in the request's header through the state machine. Never throws an expected outcome. */
export async function admitPayment(ctx: AppContext, input: AdmitPaymentInput): Promise<PaidRequestOutcome> {
  const outcome = await admitPaymentOnce(ctx, input);
  if (outcome.kind === "refused" || outcome.kind === "replay" || outcome.kind === "pending") {
    metrics().calls.inc({ route: input.purpose === "chat" ? "paid" : "topup", network: NETWORKS[input.plan.network].caip2, outcome: "refused", code: outcome.error.code });
  }
  return outcome;
}

async function admitPaymentOnce(ctx: AppContext, input: AdmitPaymentInput): Promise<PaidRequestOutcome> {
  const { plan } = input;
  const events = eventNames(input.purpose);
  const caip2 = NETWORKS[plan.network].caip2;
  const decoded = input.state.payment;
  if (decoded === null) {
    return { kind: "challenge", error: await paymentError(ctx, input, "this route is paid; pay the challenge and retry with a payment header") };
  }
  if (!decoded.ok) {
    logEvent(events.verifyFailed, { reason: "payment_invalid", detail: decoded.reason, network: caip2 });
    await recordFailure(ctx, caip2, "verify", "payment_invalid");
    return refused(await paymentError(ctx, input, `the payment header is ${decoded.reason.replace("_", " ")}`, decoded.reason));
  }
  const { payload, key } = decoded;
  const paymentId = readPaymentId(payload);
  if (!paymentId.ok) {
    logEvent(events.verifyFailed, { reason: "invalid_payment_id", detail: paymentId.reason, network: caip2 });
    return refused(new AppError("invalid_payment_id", `the payment-identifier extension is malformed: ${paymentId.detail}`, { reason: paymentId.reason }));
  }

  // Everything the claim needs is worked out first (match, verify, allowlist); then ONE statement checks that the
  // settings it was worked out from are still stored, finds the payment if it was seen before, and claims it (taking
  // the payer's settlement lane) only if it was not and the checks passed. A payment seen before is resumed whatever
  // this request's checks said: its retry does not depend on the chain answering a verification again.
  const checkedFrom = performance.now();
  const check = await checkPayment(ctx, input, payload);
  const found = await findOrClaimPayment(ctx.db, {
    key,
    expected: input.state.stored,
    claim: check.ok
      ? {
          payment: {
            idempotencyKey: key,
            network: caip2,
            payer: check.payer,
            payTo: plan.payTo,
            units: plan.amountUnits,
            purpose: input.purpose,
            clientPaymentId: paymentId.id,
            requestDigest: input.requestDigest,
            beneficiary: input.beneficiary ?? null,
          },
          source: laneSource(caip2, payload, check.payer),
        }
      : null,
  });
  if (found.stale) {
    rememberStoredSettings(found.stored);
    if (input.state.replans >= MAX_REPLANS) {
      return refused(new AppError("rate_limited", "the service's settings kept changing during this request; nothing was charged, retry", { reason: "settings_changed" }, { "Retry-After": "1" }));
    }
    return { kind: "stale-settings", replan: { stored: found.stored, replans: input.state.replans + 1 } };
  }
  if (found.claimed) {
    if (!check.ok) throw new Error("a payment was claimed without passing its checks");
    crashPoint("after_verify");
    // The database's clock when this request's checks began, at the latest: the claim's statement read its now() before
    // its answer came back, so that clock less everything since the checks began is no later than their start. A send
    // of the payer the lane saw at or after it may not have been seen by this request's verification.
    const checkedAtMs = found.nowMs - (found.answeredAt - checkedFrom);
    return settleClaimed(ctx, input, found.payment, payload, check.matched, checkedAtMs, found.lane);
  }
  let known = found.existing;
  if (check.ok && (known === null || known.status === "failed")) {
    // Checks passed and nothing was claimed: a concurrent claim committed after this statement's snapshot.
    known = (await ctx.db.payment.findUnique({ where: { idempotencyKey: key } })) ?? known;
  }
  if (known?.status === "failed" && known.failureReason === SETTLEMENT_EXPIRED) {
    // This payment's transfer can never land any more (a sweeper may have found it so): the same answer as its retry.
    return refused(await paymentError(ctx, input, "the payment's transaction expired before it landed; nothing was charged, pay again", SETTLEMENT_EXPIRED));
  }
  // The same payment sent again is the same payment, whatever id it carries now: the id bound at its claim stays.
  if (known && known.status !== "failed") return resumeKnown(ctx, input, known, payload);
  if (found.conflict) return paymentIdConflict(input, paymentId.id!, found.conflict);
  if (!check.ok) return check.refuse();
  // Claimed and failed again by a concurrent request in between: nothing of this request's was taken.
  return { kind: "replay", error: new AppError("payment_replay", "this payment is already being processed") };
}

/** A payment's checks before its claim: passed (the verified payer), or the refusal to answer if it was never seen. */
type PaymentCheck = { ok: true; payer: string; matched: PaymentRequirements } | { ok: false; refuse(): Promise<PaidRequestOutcome> };

/**
 * Matches the payment to the plan, verifies it with the facilitator (the payer is the one it verified, never a field
 * the client claims) and applies the mainnet allowlist. A refusal is returned as a thunk: it logs, counts and builds
 * its challenge only once the claim's statement has shown the payment was never seen before.
 */
async function checkPayment(ctx: AppContext, input: AdmitPaymentInput, payload: PaymentPayload): Promise<PaymentCheck> {
  const { plan } = input;
  const events = eventNames(input.purpose);
  const caip2 = NETWORKS[plan.network].caip2;
  const matched = ctx.gateway.match(plan.requirements, payload);
  if (!matched) {
    return {
      ok: false,
      async refuse() {
        logEvent(events.verifyFailed, { reason: "payment_invalid", detail: "requirements_mismatch", network: caip2 });
        await recordFailure(ctx, caip2, "verify", "payment_invalid");
        return refused(await paymentError(ctx, input, "the payment does not match the challenge (amount, asset, payee or network)", "requirements_mismatch"));
      },
    };
  }
  let verdict: { isValid: boolean; invalidReason?: string | undefined; invalidMessage?: string | undefined; payer?: string | undefined };
  try {
    verdict = await timeStep("verify", caip2, () => ctx.gateway.verify(payload, matched));
  } catch (err) {
    return { ok: false, refuse: async () => refused(chainUnavailable(events.verifyFailed, caip2, err)) };
  }
  const invalidMessage = verdict.invalidMessage;
  if (invalidMessage?.startsWith(CHAIN_UNAVAILABLE)) return { ok: false, refuse: async () => refused(chainUnavailable(events.verifyFailed, caip2, invalidMessage)) };
  if (!verdict.isValid || !verdict.payer) {
    const invalidReason = verdict.invalidReason;
    return {
      ok: false,
      async refuse() {
        const reason = await classifyVerifyFailure(payload, invalidReason, ctx.gateway.facilitator.rpcs[plan.network]);
        logEvent(events.verifyFailed, { reason, detail: invalidReason, network: caip2 });
        await recordFailure(ctx, caip2, "verify", reason);
        return refused(await paymentError(ctx, input, `payment verification failed: ${reason}`, reason, invalidReason ? { detail: invalidReason } : {}));
      },
    };
  }
  // EVM addresses are case-insensitive: receipts, the ledger and the allowlist use the lower-case form.
  const payer = NETWORKS[plan.network].family === "evm" ? verdict.payer.toLowerCase() : verdict.payer;
  // The mainnet allowlist applies to the verified payer.
  if (NETWORKS[plan.network].isMainnet && input.state.settings.allowedAgents.size > 0 && !input.state.settings.allowedAgents.has(payer)) {
    return {
      ok: false,
      async refuse() {
        logEvent("agent.not_allowed", { agent: payer, network: caip2 });
        return refused(new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet"));
      },
    };
  }
  return { ok: true, payer, matched };
}

/** A payment seen before: its retry, its recovery, or a replay. */
async function resumeKnown(ctx: AppContext, input: AdmitPaymentInput, known: Payment, payload: PaymentPayload): Promise<PaidRequestOutcome> {
  // SECURITY: a payment's transaction is public once it lands; only the request that paid (the same route, body,
  // network and beneficiary) may use it, whatever state it waits in. Nothing moves for any other.
  if (known.requestDigest === null || known.requestDigest !== input.requestDigest || known.network !== NETWORKS[input.plan.network].caip2) {
    return requestMismatch(input, known);
  }
  // SECURITY: the kill switch and the allowlist apply to the payment's own network, as they did when it was claimed.
  try {
    requireNetworkEnabled(input.state.settings, known.network, input.purpose === "chat" ? "chat" : "credits");
  } catch (err) {
    return refused(err as AppError);
  }
  const allowed = input.state.settings.allowedAgents;
  if (NETWORKS[input.plan.network].isMainnet && allowed.size > 0 && !allowed.has(known.payer)) {
    return refused(new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet"));
  }
  const leaseMs = config().PAYMENT_LEASE_MS;
  if (known.purpose !== input.purpose) return replay(known, "this payment was made for another route");
  if (known.status === "served" && known.txSignature !== null && (input.purpose === "topup" || known.answer !== null)) {
    // The same request again after it was served (its answer lost in transit): the stored answer, not a second call.
    logEvent(`${eventNames(input.purpose).prefix}.answer_replayed`, { payment_id: known.id, network: known.network });
    return { kind: "answered", payment: { ...known, txSignature: known.txSignature } };
  }
  if (known.status === "pending") return resumePending(ctx, input, known, payload);
  if (known.status === "claimed") {
    // A claim older than its lease belongs to a server that died mid-settlement: finish it from the chain's answer.
    if (Date.now() - known.updatedAt.getTime() >= leaseMs && (await takeOverStale(ctx.db, known.id, leaseMs, ["claimed"], "claimed"))) {
      return recoverClaim(ctx, input, known, payload);
    }
    return replay(known, "this payment is already being processed");
  }
  if (input.purpose === "topup") return replay(known, "this payment is already being processed");
  if (known.status === "unserved" && (await beginServingUnserved(ctx.db, known.id))) {
    return { kind: "retry-unserved", payment: { ...known, status: "serving", txSignature: known.txSignature! } };
  }
  // Settled or serving, and its lease ran out: the server serving it died; serve it once now.
  if ((known.status === "settled" || known.status === "serving") && (await takeOverStale(ctx.db, known.id, leaseMs, ["settled", "serving"], "serving"))) {
    logEvent("chat.serve_recovered", { payment_id: known.id, network: known.network });
    return { kind: "retry-unserved", payment: { ...known, status: "serving", txSignature: known.txSignature! } };
  }
  return replay(
    known,
    known.status === "served"
      ? "this payment was already used for a call, and its answer is no longer kept (or the call's stream was cut); its receipt stays in the log"
      : "this payment is already being processed",
  );
}

/**
 * Settles a claimed payment in its payer's lane: one settlement per paying account at a time, across instances. When
 * another settlement of the same payer was sent since this one verified, the chain is asked again right before sending
 * (Solana: settle simulates afresh; Base: verify simulates the transfer), so a payer funded for one call cannot make the
 * facilitator send, and pay for, transactions that are bound to fail. Marks the claim failed (nothing moved) when the
 * payment is refused.
 */
async function settleClaimed(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  verifiedAtMs: number,
  firstLaneAttempt?: LaneAttempt,
): Promise<PaidRequestOutcome> {
  const { plan } = input;
  const caip2 = NETWORKS[plan.network].caip2;
  const source = laneSource(caip2, payload, payment.payer);
  // SECURITY: a live settlement keeps its claim (and, once taken, its lane): only a dead server's claim is taken over.
  // Otherwise a retry arriving after PAYMENT_LEASE_MS would settle the same payment beside it, and could mark failed a
  // payment whose first transfer then lands.
  const keeper = keepClaim(ctx.db, payment.id, config().PAYMENT_LEASE_MS);
  try {
    return await settleInLane(ctx, input, payment, payload, matched, verifiedAtMs, source, keeper, firstLaneAttempt);
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
  const caip2 = NETWORKS[input.plan.network].caip2;
  const taken = await takeSettlementLane(ctx.db, source, payment.id, verifiedAtMs, config().PAYMENT_LEASE_MS, firstLaneAttempt);
  if (!taken.ok) {
    await markFailed(ctx.db, payment.id, taken.reason);
    logEvent(eventNames(input.purpose).settleFailed, { reason: taken.reason, network: caip2 }, "warn");
    const message =
      taken.reason === "payer_refused"
        ? "this payer's recent settlements kept failing; it is refused for a while, and nothing was charged"
        : "another payment of this payer is settling; nothing was charged, retry shortly";
    return refused(new AppError("rate_limited", message, { reason: taken.reason }, { "Retry-After": String(Math.ceil(taken.retryAfterMs / 1000)) }));
  }
  const lane = taken.lane;
  keeper.keepLane(source);
  let outcome: { result: PaidRequestOutcome; sent: boolean; failed: boolean } | undefined;
  try {
    outcome = await sendSettlement(ctx, input, payment, payload, matched, lane);
    return outcome.result;
  } finally {
    // A recorded settlement freed the lane in its credit's statement; every other path frees it here.
    await lane.release({ sent: outcome?.sent ?? true, failed: outcome?.failed ?? false }).catch((err: unknown) => {
      logEvent("chat.lane_release_failed", { source, reason: String(err).slice(0, 200) }, "warn");
    });
  }
}

async function sendSettlement(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payment: Payment,
  payload: PaymentPayload,
  matched: PaymentRequirements,
  lane: Lane,
): Promise<{ result: PaidRequestOutcome; sent: boolean; failed: boolean }> {
  const { plan } = input;
  const events = eventNames(input.purpose);
  const caip2 = NETWORKS[plan.network].caip2;
  const svm = NETWORKS[plan.network].family === "svm";
  if (lane.sentSinceVerify) {
    const transaction = (payload.payload as { transaction?: unknown }).transaction;
    if (svm && typeof transaction === "string") {
      // Settle verifies again before it sends; make that verification ask the chain instead of reusing verify's.
      ctx.gateway.facilitator.forgetSimulation(transaction, caip2);
    } else if (!svm) {
      const verdict = await ctx.gateway.verify(payload, matched).catch(() => null);
      if (!verdict?.isValid) {
        // A refused verification is no proof that nothing moved: this authorization may be spent by this payment's own
        // earlier relay (a server that died after sending it). Ask the chain before saying nothing was charged.
        const landed = verdict ? await findLandedSettlement(ctx.gateway.facilitator, plan.network, payload).catch(() => null) : null;
        if (landed?.state === "landed") {
          logEvent(events.settleOk, { network: caip2, payer: payment.payer, transaction: landed.transaction, amount: plan.amountUnits.toString(), recovered: "recheck" });
          countSettlement(input.purpose, caip2, "recovered", null);
          return { result: await recordSettled(ctx, input, payment, landed.transaction, lane), sent: true, failed: false };
        }
        if (verdict && landed === null) {
          // The chain cannot say whether it moved: keep the claim (its lease makes a later retry resolve it).
          logEvent(events.settleUnknown, { reason: "recheck_unreadable", network: caip2, payment_id: payment.id }, "warn");
          countSettlement(input.purpose, caip2, "unknown", null);
          return { result: refused(new AppError("chain_unavailable", "the payment's settlement could not be confirmed; retry the same request later", { reason: "recheck_unreadable" })), sent: false, failed: false };
        }
        const reason = verdict ? await classifyVerifyFailure(payload, verdict.invalidReason, undefined) : "chain_unavailable";
        await markFailed(ctx.db, payment.id, reason);
        logEvent(events.settleFailed, { reason, network: caip2, stage: "recheck" }, "warn");
        countSettlement(input.purpose, caip2, verdict ? "failed" : "unknown", null);
        await recordFailure(ctx, caip2, "settle", reason);
        const error = verdict
          ? await paymentError(ctx, input, `the payment can no longer be settled: ${reason}; nothing was charged`, reason)
          : new AppError("chain_unavailable", "the chain could not be reached to settle the payment; nothing was charged, retry later");
        return { result: refused(error), sent: false, failed: verdict !== null };
      }
    }
  }
  let failure: string;
  // The transaction settle broadcast, if any; `pending` when its confirmation was not seen within the wait.
  let sent: string | null = null;
  let pending = false;
  try {
    const result = await timeStep("settle", caip2, () => ctx.gateway.settle(payload, matched));
    if (result.success && result.transaction) {
      crashPoint("after_settle");
      logEvent(events.settleOk, { network: caip2, payer: payment.payer, transaction: result.transaction, amount: plan.amountUnits.toString(), ...feeField(payload) });
      countSettlement(input.purpose, caip2, "ok", payload);
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
    logEvent(events.settleOk, { network: caip2, payer: payment.payer, transaction: landed.transaction, amount: plan.amountUnits.toString(), recovered: failure });
    countSettlement(input.purpose, caip2, "recovered", null);
    return { result: await recordSettled(ctx, input, payment, landed.transaction, lane), sent: true, failed: false };
  }
  if (pending && sent && (landed === null || landed.state === "absent")) {
    return { result: await recordPending(ctx, input, payment, payload, sent), sent: true, failed: false };
  }
  if (landed === null) {
    // The chain cannot say: keep the claim (its lease makes a later retry resolve it) rather than risk a wrong answer.
    logEvent(events.settleUnknown, { reason: failure, network: caip2, payment_id: payment.id }, "warn");
    countSettlement(input.purpose, caip2, "unknown", null);
    return {
      result: refused(new AppError("chain_unavailable", "the payment's settlement could not be confirmed; retry the same request later", { reason: failure })),
      sent: true,
      failed: false,
    };
  }
  // A transaction sent and never seen whose blockhash (or validBefore) passed can never land: it expired.
  const expired = landed.state === "expired" && sent !== null;
  if (expired) failure = SETTLEMENT_EXPIRED;
  await markFailed(ctx.db, payment.id, failure);
  // A transaction that landed and failed cost the fee payer its fee; one refused before sending cost nothing.
  logEvent(expired ? events.settleExpired : events.settleFailed, { reason: failure, network: caip2, ...(landed.state === "failed" ? feeField(payload) : {}) }, "warn");
  countSettlement(input.purpose, caip2, expired ? "expired" : "failed", landed.state === "failed" ? payload : null);
  await recordFailure(ctx, caip2, "settle", failure);
  return {
    result: refused(await paymentError(ctx, input, "the payment could not be settled; nothing was charged", failure)),
    sent: landed.state === "failed",
    failed: true,
  };
}

/** The Solana fee the fee payer paid for this settlement, for the settle events. */
function feeField(payload: PaymentPayload): { fee_lamports?: string } {
  const fee = solanaFeeLamports(payload);
  return fee === null ? {} : { fee_lamports: fee.toString() };
}

/**
 * claimed → pending: the transaction went out and its confirmation was not seen in time. The client gets 502
 * settlement_pending with the transaction and when to retry; the row keeps what any instance needs to finish it.
 */
async function recordPending(ctx: AppContext, input: AdmitPaymentInput, payment: Payment, payload: PaymentPayload, transaction: string): Promise<PaidRequestOutcome> {
  const events = eventNames(input.purpose);
  const moved = await markPending(ctx.db, payment.id, { transaction, payload, beneficiary: payment.beneficiary });
  if (!moved.ok) {
    if (moved.reason === "transaction_already_used") {
      await markFailed(ctx.db, payment.id, moved.reason);
      return { kind: "replay", error: new AppError("payment_replay", "this payment's transaction was already used", { tx_signature: transaction }) };
    }
    return replay(payment, "this payment is already being processed");
  }
  logEvent(events.settlePending, { network: payment.network, payer: payment.payer, payment_id: payment.id, transaction, wait_ms: config().SETTLEMENT_CONFIRM_WAIT_MS }, "warn");
  countSettlement(input.purpose, payment.network, "pending", null);
  return { kind: "pending", error: settlementPendingError(transaction, payment.network) };
}

/**
 * A retry of a pending payment: its fate is read from the chain. Landed: credited (chat: with its hold) and served
 * now, once. Failed on chain or expired: failed, a clean 402 (nothing was charged; pay again). Still able to land:
 * broadcast again, and 502 settlement_pending again. Concurrent retries (any instance) move the row once; a loser
 * takes whatever the winner left.
 */
async function resumePending(ctx: AppContext, input: AdmitPaymentInput, known: Payment, payload: PaymentPayload): Promise<PaidRequestOutcome> {
  const events = eventNames(input.purpose);
  // The payload that was broadcast, as stored; the retry's may be another encoding of the same payment.
  const broadcast = (known.pendingPayload as unknown as PaymentPayload | null) ?? payload;
  const found = await resolvePendingOnChain(ctx, known, broadcast, config().SETTLEMENT_CONFIRM_WAIT_MS);
  if (found.state === "landed") {
    const credited = await creditLandedPending(ctx.db, known, found.transaction, input.purpose === "chat" ? "settled" : "served");
    if (!credited.ok) return resumeMovedOn(ctx, input, known, payload);
    logEvent(events.settleRecovered, { network: known.network, payer: known.payer, payment_id: known.id, transaction: found.transaction, by: "retry" });
    countSettlement(input.purpose, known.network, "recovered", broadcast);
    crashPoint("after_credit");
    return { kind: "settled", payment: { ...known, status: "settled", txSignature: found.transaction }, balanceUnits: credited.balanceUnits };
  }
  if (found.state === "failed" || found.state === "expired") {
    const reason = found.state === "expired" ? SETTLEMENT_EXPIRED : "settlement_failed_on_chain";
    if (!(await failPending(ctx.db, known.id, reason))) return resumeMovedOn(ctx, input, known, payload);
    logEvent(found.state === "expired" ? events.settleExpired : events.settleFailed, { reason, network: known.network, payment_id: known.id, ...(found.state === "failed" ? feeField(broadcast) : {}) }, "warn");
    countSettlement(input.purpose, known.network, found.state, found.state === "failed" ? broadcast : null);
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
async function resumeMovedOn(ctx: AppContext, input: AdmitPaymentInput, known: Payment, payload: PaymentPayload): Promise<PaidRequestOutcome> {
  const now = await ctx.db.payment.findUnique({ where: { id: known.id } });
  if (!now || now.status === "pending") return { kind: "pending", error: settlementPendingError(known.txSignature ?? "", known.network) };
  if (now.status === "failed") {
    const reason = now.failureReason ?? "settlement_failed";
    return refused(await paymentError(ctx, input, "the payment could not be settled; nothing was charged", reason));
  }
  return resumeKnown(ctx, input, now, payload);
}

/**
 * claimed → settled (chat: credit and hold in one statement) or → served (top-up: the credit is the purchase); the same
 * statement frees the payer's lane when the settlement ran in it. The same transaction can arrive under another payment
 * row (an encoding the key did not fold): that row is a replay.
 */
async function recordSettled(ctx: AppContext, input: AdmitPaymentInput, payment: Payment, transaction: string, lane?: Lane): Promise<PaidRequestOutcome> {
  const chat = input.purpose === "chat";
  const credited = await creditAgent(ctx.db, {
    kind: chat ? "payment_credit" : "topup_credit",
    // SECURITY: the beneficiary the claiming request named, stored with the claim; never a later request's.
    agentPubkey: payment.beneficiary ?? payment.payer,
    network: payment.network,
    units: payment.units,
    payment: { id: payment.id, txSignature: transaction, nextStatus: chat ? "settled" : "served" },
    ...(chat ? { holdForCall: { holdId: payment.id, leaseMs: config().PAYMENT_LEASE_MS } } : {}),
    ...(lane ? { alongside: lane.releaseStatement({ sent: true, failed: false }) } : {}),
  });
  // Rolled back on a transaction already used: the caller's release frees the lane then.
  if (lane && (credited.ok || credited.reason !== "transaction_already_used")) lane.released();
  if (!credited.ok) {
    await markFailed(ctx.db, payment.id, credited.reason);
    logEvent(`${input.purpose === "chat" ? "chat" : "credits"}.settle_replay`, { payment_id: payment.id, transaction, reason: credited.reason }, "warn");
    return { kind: "replay", error: new AppError("payment_replay", "this payment's transaction was already used", { tx_signature: transaction }) };
  }
  crashPoint("after_credit");
  return { kind: "settled", payment: { ...payment, status: "settled", txSignature: transaction }, balanceUnits: credited.balanceUnits, pointsBefore: credited.points };
}

/**
 * A claim whose lease ran out, now ours: if its settlement landed, record it; if the chain has no trace of it, settle
 * it now (the same Solana transaction, or the same EIP-3009 authorization: neither can move money twice).
 */
async function recoverClaim(ctx: AppContext, input: AdmitPaymentInput, known: Payment, payload: PaymentPayload): Promise<PaidRequestOutcome> {
  const matched = ctx.gateway.match(input.plan.requirements, payload);
  const landed = matched ? await findLandedSettlement(ctx.gateway.facilitator, input.plan.network, payload).catch(() => null) : null;
  if (landed === null || !matched) {
    // The chain could not be read (or the request names another plan): leave the claim for a later retry.
    return refused(new AppError("chain_unavailable", "this payment is being recovered; retry the same request shortly"));
  }
  logEvent(`${eventNames(input.purpose).prefix}.claim_recovered`, { network: known.network, payment_id: known.id, found: landed.state });
  if (landed.state === "landed") countSettlement(input.purpose, known.network, "recovered", null);
  if (landed.state === "landed") return recordSettled(ctx, input, known, landed.transaction);
  if (landed.state === "failed") {
    await markFailed(ctx.db, known.id, "settlement_failed_on_chain");
    return refused(await paymentError(ctx, input, "the payment's settlement failed on chain; nothing was charged", "settlement_failed_on_chain"));
  }
  // No verification of ours preceded this settlement: the lane re-checks the chain if anything of the payer was sent.
  return settleClaimed(ctx, input, known, payload, matched, 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Transitions: one statement each.

interface NewPayment {
  idempotencyKey: string;
  network: string;
  payer: string;
  payTo: string;
  units: bigint;
  purpose: PaymentPurpose;
  /** The client's payment id (x402 payment-identifier), if it sent one. */
  clientPaymentId: string | null;
  requestDigest: string;
  beneficiary: string | null;
}

/** What the claim's statement found: the settings changed; or the payment claimed by this request; or not. */
type FindOrClaimOutcome =
  | { stale: true; stored: StoredSettings }
  | { stale: false; claimed: true; payment: Payment; lane: LaneAttempt; /** The statement's now(), epoch ms (µs precision). */ nowMs: number; /** When its answer came back (performance.now()). */ answeredAt: number }
  /** Not claimed: the payment if seen before; the payer's other payment holding the client's payment id, if any. */
  | { stale: false; claimed: false; existing: Payment | null; conflict: Payment | null };

/**
 * In one statement: the stored settings, checked against `expected`; the payment under `key`, if any; and, when
 * `claim` is given and the settings are unchanged, → claimed and the payer's settlement lane tried for it. Exactly one
 * of any number of concurrent claims of one key wins; a failed payment may be claimed again, unless it expired (its
 * transfer can never land). Only the winner tries the lane.
 */
async function findOrClaimPayment(db: DbClient, input: { key: string; expected: StoredSettings; claim: { payment: NewPayment; source: string } | null }): Promise<FindOrClaimOutcome> {
  const p = input.claim?.payment ?? NO_CLAIM;
  const source = input.claim?.source ?? "";
  const id = p.clientPaymentId;
  let rows;
  try {
    // SECURITY: the claim is taken before the first await that moves money; the same statement tries the payer's lane,
    // and binds the client's payment id, unless another payment of the payer holds it.
    rows = await hotQuery<{ current: boolean; stored: StoredSettings; now_ms: number; payment: PaymentJson | null; existing: PaymentJson | null; id_owner: PaymentJson | null; taken: bigint; last_sent_ms: number | null; refused_ms: number | null }>(db, Prisma.sql`
      WITH current AS (
        SELECT ${storedSettingsAre(input.expected)} AS yes
      ), claimed AS (
        INSERT INTO payments (id, payload_hash, network, payer, pay_to, units, purpose, status, updated_at, client_payment_id, request_digest, beneficiary)
        SELECT ${randomUUID()}::uuid, ${input.key}, ${p.network}, ${p.payer}, ${p.payTo}, ${p.units}, ${p.purpose}, ${"claimed" satisfies PaymentStatus}, now(), ${id}::text,
               ${p.requestDigest}, ${p.beneficiary}::text
        FROM current WHERE current.yes AND ${input.claim !== null}
          AND (${id}::text IS NULL OR NOT EXISTS (SELECT 1 FROM payments WHERE payer = ${p.payer} AND client_payment_id = ${id}::text AND payload_hash <> ${input.key}))
        ON CONFLICT (payload_hash) DO UPDATE SET status = EXCLUDED.status, failure_reason = NULL, updated_at = now(),
               client_payment_id = EXCLUDED.client_payment_id, request_digest = EXCLUDED.request_digest, beneficiary = EXCLUDED.beneficiary,
               network = EXCLUDED.network, pay_to = EXCLUDED.pay_to, units = EXCLUDED.units, purpose = EXCLUDED.purpose
          WHERE payments.status = ${"failed" satisfies PaymentStatus} AND payments.failure_reason IS DISTINCT FROM ${SETTLEMENT_EXPIRED}
        RETURNING id, ${PAYMENT_JSON} AS payment
      ), lane AS (${takeLaneStatement(source, Prisma.sql`SELECT id FROM claimed`, config().PAYMENT_LEASE_MS)})
      SELECT (SELECT yes FROM current) AS current, ${STORED_SETTINGS_JSON} AS stored, ${epochMsOf(Prisma.raw("now()"))} AS now_ms,
             (SELECT payment FROM claimed) AS payment, (SELECT count(*) FROM lane) AS taken, (SELECT last_sent_ms FROM lane) AS last_sent_ms,
             ${laneRefusedMsExpression(source)} AS refused_ms,
             (SELECT ${PAYMENT_JSON} FROM payments WHERE payload_hash = ${input.key}) AS existing,
             (SELECT ${PAYMENT_JSON} FROM payments
               WHERE ${id}::text IS NOT NULL AND payer = ${p.payer} AND client_payment_id = ${id}::text AND payload_hash <> ${input.key}) AS id_owner`);
  } catch (err) {
    // SECURITY: two payments under one id at once: the unique index lets one commit; this one claimed nothing.
    if (id === null || !isUniqueViolation(err)) throw err;
    const owner = await db.payment.findFirst({ where: { payer: p.payer, clientPaymentId: id, NOT: { idempotencyKey: input.key } } });
    if (!owner) throw err;
    return { stale: false, claimed: false, existing: null, conflict: owner };
  }
  const answeredAt = performance.now();
  const row = rows[0]!;
  if (!row.current) return { stale: true, stored: row.stored };
  if (row.payment) return { stale: false, claimed: true, payment: paymentFromJson(row.payment), lane: laneAttempt(row), nowMs: Number(row.now_ms), answeredAt };
  return { stale: false, claimed: false, existing: row.existing ? paymentFromJson(row.existing) : null, conflict: row.id_owner ? paymentFromJson(row.id_owner) : null };
}

/** The claim's parameters when none is asked for: the INSERT never runs. */
const NO_CLAIM: NewPayment = { idempotencyKey: "", network: "", payer: "", payTo: "", units: 0n, purpose: "chat", clientPaymentId: null, requestDigest: "", beneficiary: null };

/** Keeps a settling claim's lease, and its lane's hold once taken, until stopped. */
interface ClaimKeeper {
  keepLane(source: string): void;
  stop(): void;
}

/** Renews the claim of `paymentId` (and its lane) every third of `leaseMs`, one statement a round, until stopped. */
function keepClaim(db: DbClient, paymentId: string, leaseMs: number): ClaimKeeper {
  let laneSource: string | null = null;
  const timer = setInterval(() => {
    renewClaim(db, paymentId, laneSource, leaseMs).catch((err: unknown) => logEvent("payment.claim_renew_failed", { payment_id: paymentId, reason: String(err).slice(0, 200) }, "warn"));
  }, Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref?.();
  return {
    keepLane: (source) => {
      laneSource = source;
    },
    stop: () => clearInterval(timer),
  };
}

/** claimed (still) → its lease renewed; the lane it holds, if any, held for another lease. */
async function renewClaim(db: DbClient, paymentId: string, laneSource: string | null, leaseMs: number): Promise<void> {
  await hotExecute(db, Prisma.sql`
    WITH claim AS (
      UPDATE payments SET updated_at = now() WHERE id = ${paymentId}::uuid AND status = ${"claimed" satisfies PaymentStatus} RETURNING id
    )
    UPDATE settlement_lanes SET held_until = now() + make_interval(secs => ${leaseMs}::double precision / 1000)
    WHERE ${laneSource}::text IS NOT NULL AND source = ${laneSource} AND holder = ${paymentId}::uuid`);
}

/**
 * claimed → failed: settlement was refused, or its transaction belongs to another payment. Nothing moved, so the
 * client's payment id is free again for the payer's next payment.
 */
async function markFailed(db: DbClient, paymentId: string, reason: string): Promise<void> {
  await db.payment.updateMany({
    where: { id: paymentId, status: "claimed" satisfies PaymentStatus },
    data: { status: "failed" satisfies PaymentStatus, failureReason: reason.slice(0, 200), clientPaymentId: null },
  });
}

/** settled | serving → unserved: the upstream failed; the hold stays reserved, and one retry may serve it. */
export async function markUnserved(db: DbClient, paymentId: string, reason: string): Promise<void> {
  await db.payment.updateMany({
    where: { id: paymentId, status: { in: ["settled", "serving"] satisfies PaymentStatus[] } },
    data: { status: "unserved" satisfies PaymentStatus, failureReason: reason.slice(0, 200) },
  });
}

/** unserved → serving; true for exactly one of concurrent retries. */
async function beginServingUnserved(db: DbClient, paymentId: string): Promise<boolean> {
  const taken = await db.payment.updateMany({
    where: { id: paymentId, status: "unserved" satisfies PaymentStatus },
    data: { status: "serving" satisfies PaymentStatus },
  });
  return taken.count === 1;
}

/** Takes over a row in `from` whose lease ran out, refreshing the lease; true for exactly one of concurrent takers. */
async function takeOverStale(db: DbClient, paymentId: string, leaseMs: number, from: PaymentStatus[], to: PaymentStatus): Promise<boolean> {
  const taken = await db.payment.updateMany({
    where: { id: paymentId, status: { in: from }, updatedAt: { lt: new Date(Date.now() - leaseMs) } },
    data: { updatedAt: new Date(), status: to },
  });
  return taken.count === 1;
}

/** A payments row as one JSON value (its own columns, unqualified), for a raw statement that reads or returns one. */
const PAYMENT_JSON = Prisma.sql`json_build_object(
  'id', id, 'idempotencyKey', payload_hash, 'txSignature', tx_signature, 'network', network, 'payer', payer,
  'payTo', pay_to, 'units', units::text, 'purpose', purpose, 'status', status, 'failureReason', failure_reason,
  'inferenceId', inference_id, 'createdAt', created_at, 'updatedAt', updated_at,
  'pendingPayload', pending_payload, 'pendingBlockhash', pending_blockhash, 'pendingValidBefore', pending_valid_before,
  'pendingBeneficiary', pending_beneficiary, 'clientPaymentId', client_payment_id, 'requestDigest', request_digest,
  'beneficiary', beneficiary, 'answer', answer)`;

function paymentFromJson(p: PaymentJson): Payment {
  return {
    ...p,
    units: BigInt(p.units),
    createdAt: new Date(p.createdAt),
    updatedAt: new Date(p.updatedAt),
    pendingValidBefore: p.pendingValidBefore ? new Date(p.pendingValidBefore) : null,
  };
}

/** The payer's settlement lane: its paying account (the token account or address that pays), else the payer. */
function laneSource(caip2: string, payload: PaymentPayload, payer: string): string {
  return payingAccount(caip2, payload) ?? `payer:${caip2}:${payer}`;
}

type PaymentJson = Omit<Payment, "units" | "createdAt" | "updatedAt" | "pendingValidBefore"> & {
  units: string;
  createdAt: string;
  updatedAt: string;
  pendingValidBefore: string | null;
};

// ---------------------------------------------------------------------------------------------------------------

const refused = (error: AppError): PaidRequestOutcome => ({ kind: "refused", error });

function replay(payment: Payment, message: string): PaidRequestOutcome {
  return { kind: "replay", error: new AppError("payment_replay", message, payment.txSignature ? { tx_signature: payment.txSignature } : {}) };
}

/** This request is not the one the payment paid for: another body, network, route or beneficiary. Nothing moved. */
function requestMismatch(input: AdmitPaymentInput, known: Payment): PaidRequestOutcome {
  logEvent(`${eventNames(input.purpose).prefix}.request_mismatch`, { payment_id: known.id, network: known.network, status: known.status }, "warn");
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
function paymentIdConflict(input: AdmitPaymentInput, id: string, owner: Payment): PaidRequestOutcome {
  logEvent(`${eventNames(input.purpose).prefix}.payment_id_conflict`, { existing_payment: owner.id, network: owner.network });
  return {
    kind: "replay",
    error: new AppError(
      "payment_id_conflict",
      "this payment id belongs to another payment of this payer; nothing was charged for this one. A new payment needs a new id",
      { client_payment_id: id, ...(owner.txSignature ? { tx_signature: owner.txSignature } : {}) },
    ),
  };
}

/** The log events of each purpose, written out so a search for the name finds them. */
function eventNames(purpose: PaymentPurpose) {
  return purpose === "chat"
    ? {
        prefix: "chat",
        verifyFailed: "chat.verify_failed",
        settleOk: "chat.settle_ok",
        settleFailed: "chat.settle_failed",
        settleUnknown: "chat.settle_unknown",
        settlePending: "chat.settle_pending",
        settleExpired: "chat.settle_expired",
        settleRecovered: "chat.settle_recovered",
      }
    : {
        prefix: "credits",
        verifyFailed: "credits.verify_failed",
        settleOk: "credits.settle_ok",
        settleFailed: "credits.settle_failed",
        settleUnknown: "credits.settle_unknown",
        settlePending: "credits.settle_pending",
        settleExpired: "credits.settle_expired",
        settleRecovered: "credits.settle_recovered",
      };
}

/** The chain (or its RPC) could not be asked: the client's payment is not at fault. */
function chainUnavailable(event: string, caip2: string, err: unknown): AppError {
  logEvent(event, { reason: "chain_unavailable", network: caip2, detail: String(err instanceof Error ? err.message : err).slice(0, 200) }, "warn");
  return new AppError("chain_unavailable", "the chain could not be reached to verify the payment; nothing was charged, retry later");
}

/**
 * Counts a failure for the dashboard in its (network, stage, reason, UTC hour) row: any number of bad payment headers
 * make a bounded number of rows. Never lets bookkeeping turn a 402 into a 500.
 */
async function recordFailure(ctx: AppContext, network: string, stage: "verify" | "settle", reason: string): Promise<void> {
  const now = Date.now();
  const hour = new Date(now - (now % 3_600_000));
  await ctx.db.$executeRaw`
    INSERT INTO payment_failure_counts (network, stage, reason, hour, count) VALUES (${network}, ${stage}, ${reason.slice(0, 100)}, ${hour}, 1)
    ON CONFLICT (network, stage, reason, hour) DO UPDATE SET count = payment_failure_counts.count + 1`.catch(() => undefined);
}

/**
 * Every 402 is `payment_required` with the challenge to pay again, in the body and in both challenge headers; what went
 * wrong with a refused payment is its `reason` (a stable value: malformed, requirements_mismatch, insufficient_balance,
 * payment_invalid, a settlement reason…), so a client needs one branch for "pay (again)".
 */
async function paymentError(ctx: AppContext, input: AdmitPaymentInput, message: string, reason?: string, details: Record<string, unknown> = {}): Promise<AppError> {
  const challenge = await ctx.gateway.paymentRequired(input.plan.requirements, { url: input.resourceUrl, description: input.description }, reason ?? "payment_required");
  metrics().paymentRequired.inc({ network: input.plan.requirements.network, reason: reason ?? "payment_required" });
  return new AppError("payment_required", message, { ...details, ...(reason ? { reason } : {}), challenge }, challengeHeaders(challenge));
}
