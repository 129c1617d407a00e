// Taking one x402 payment, shared by the chat route and the credit top-up route: plan the requirement for a network
// and amount, then verify → payer → allowlist → claim → settle, in the seed's order. The caller decides what a
// settled payment buys; a payment seen before is handed back as `known` for the caller's replay rules.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ensureDepositReady, type AppContext } from "../app-context";
import { NETWORKS, resolveNetwork, type NetworkId } from "../chain/networks";
import type { Payment } from "../db";
import { AppError } from "../errors";
import { logEvent } from "../log";
import { claimPayment, findPaymentWithStoredSettings, markSettlementFailed, takeOverStaleClaim, type PaymentPurpose } from "../ledger/payment-records";
import { crashPoint } from "../chaos/crash-point";
import { config } from "../env";
import { depositAddressFor } from "./deposit-address";
import { findLandedSettlement } from "./find-landed-settlement";
import type { Settings } from "../settings/setting-definitions";
import { settingsFromStored } from "../settings/read-settings";
import { classifyVerifyFailure } from "./classify-verify-failure";
import { paymentPayloadHash } from "./payload-hash";
import { challengeHeaders, decodePaymentHeader, readPaymentHeader, type DecodedPayment } from "./payment-headers";

export interface PaymentPlan {
  network: NetworkId;
  requirements: PaymentRequirements;
  payTo: string;
  amountUnits: bigint;
}

/** Resolves the network and its rules (kill switch, deposit address, RPC) and builds the requirement. */
export async function planPayment(ctx: AppContext, settings: Settings, networkName: string | undefined, amountUnits: bigint): Promise<PaymentPlan> {
  const network = networkName === undefined ? settings.defaultNetwork : resolveNetwork(networkName, settings.defaultNetwork);
  if (network === null) throw new AppError("invalid_network", "network must be one of mainnet, devnet, base, base-sepolia (or a CAIP-2 id)", { detail: "network" });
  const info = NETWORKS[network];
  if (info.isMainnet && !settings.mainnetEnabled) {
    logEvent("mainnet.disabled", { network: info.caip2 });
    throw new AppError("mainnet_disabled", "mainnet is disabled by the operator");
  }
  const payTo = depositAddressFor(ctx, settings, network);
  if (info.family === "svm") {
    await ensureDepositReady(ctx.gateway, network, payTo).catch(() => {
      throw new AppError("upstream_error", `the ${info.label} RPC could not be reached`);
    });
  }
  const requirements = await ctx.gateway.requirements(network, amountUnits, payTo);
  return { network, requirements, payTo, amountUnits };
}

/**
 * What a paid route reads first, in one round trip: the settings, and the request's payment header, read and decoded
 * once, with its payload hash and the payment stored under it if seen before.
 */
export interface PaidRequestState {
  settings: Settings;
  /** Null when the request carries no payment header. */
  payment: null | (DecodedPayment & { ok: false }) | { ok: true; payload: PaymentPayload; payloadHash: string; known: Payment | null };
}

export async function readPaidRequestState(ctx: AppContext, headers: Headers): Promise<PaidRequestState> {
  const header = readPaymentHeader(headers);
  const decoded = header === null ? null : decodePaymentHeader(header);
  const payloadHash = decoded?.ok ? paymentPayloadHash(decoded.payload) : null;
  const { stored, payment } = await findPaymentWithStoredSettings(ctx.db, payloadHash);
  const settings = settingsFromStored(stored);
  if (!decoded?.ok) return { settings, payment: decoded };
  return { settings, payment: { ok: true, payload: decoded.payload, payloadHash: payloadHash!, known: payment } };
}

export interface AcceptPaymentInput {
  /** From readPaidRequestState, on the same request. */
  state: PaidRequestState;
  plan: PaymentPlan;
  resourceUrl: string;
  description: string;
  purpose: PaymentPurpose;
  /** Prefix of the §6 log events: `chat` for the chat route (the seed's names), `credits` for top-ups. */
  eventPrefix: "chat" | "credits";
}

export type AcceptedPayment = { kind: "settled"; payment: Payment } | { kind: "known"; payment: Payment };

/** Takes the payment in the request's header. Throws 402/403 AppErrors (with the challenge) for every refusal. */
export async function acceptPayment(ctx: AppContext, input: AcceptPaymentInput): Promise<AcceptedPayment> {
  const { plan, eventPrefix } = input;
  const caip2 = NETWORKS[plan.network].caip2;
  const decoded = input.state.payment;
  if (decoded === null) throw await paymentError(ctx, input, "payment_required", "this route is paid; pay the challenge and retry with a payment header");
  if (!decoded.ok) {
    logEvent(`${eventPrefix}.verify_failed`, { reason: "payment_invalid", detail: decoded.reason, network: caip2 });
    await recordFailure(ctx, caip2, "verify", "payment_invalid");
    throw await paymentError(ctx, input, "payment_invalid", `the payment header is ${decoded.reason.replace("_", " ")}`, { reason: decoded.reason });
  }
  const { payload, payloadHash, known } = decoded;
  if (known?.status === "claimed") {
    // A claim older than its lease belongs to a process that died mid-settlement: finish it from the chain's answer.
    const resumed = await resumeStaleClaim(ctx, input, known, payload);
    if (resumed) return resumed;
  }
  if (known && known.status !== "failed") return { kind: "known", payment: known };

  const matched = ctx.gateway.match(plan.requirements, payload);
  if (!matched) {
    logEvent(`${eventPrefix}.verify_failed`, { reason: "payment_invalid", detail: "requirements_mismatch", network: caip2 });
    await recordFailure(ctx, caip2, "verify", "payment_invalid");
    throw await paymentError(ctx, input, "payment_invalid", "the payment does not match the challenge (amount, asset, payee or network)", { reason: "requirements_mismatch" });
  }

  // Verify with the facilitator; the payer is the one it verified, never a field the client claims.
  const verdict = await ctx.gateway.verify(payload, matched).catch(() => ({ isValid: false, invalidReason: "verification_error", payer: undefined }));
  if (!verdict.isValid || !verdict.payer) {
    const reason = await classifyVerifyFailure(payload, verdict.invalidReason, ctx.gateway.facilitator.rpcs[plan.network]);
    logEvent(`${eventPrefix}.verify_failed`, { reason, detail: verdict.invalidReason, network: caip2 });
    await recordFailure(ctx, caip2, "verify", reason);
    throw await paymentError(ctx, input, "payment_invalid", `payment verification failed: ${reason}`, {
      reason,
      ...(verdict.invalidReason ? { detail: verdict.invalidReason } : {}),
    });
  }
  // EVM addresses are case-insensitive: receipts, the ledger and the allowlist use the lower-case form.
  const payer = NETWORKS[plan.network].family === "evm" ? verdict.payer.toLowerCase() : verdict.payer;

  // The mainnet allowlist applies to the verified payer (the seed's §5).
  if (NETWORKS[plan.network].isMainnet && input.state.settings.allowedAgents.size > 0 && !input.state.settings.allowedAgents.has(payer)) {
    logEvent("agent.not_allowed", { agent: payer, network: caip2 });
    throw new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet");
  }

  // Claim before the first await that moves money (STYLE §7).
  const claim = await claimPayment(ctx.db, { payloadHash, network: caip2, payer, payTo: plan.payTo, units: plan.amountUnits, purpose: input.purpose });
  if (!claim.claimed) return { kind: "known", payment: claim.existing };
  crashPoint("after_verify");
  return settleClaimed(ctx, input, claim.payment, payload, matched);
}

/** Settles a claimed payment; marks it failed (nothing moved) when the facilitator refuses. */
async function settleClaimed(ctx: AppContext, input: AcceptPaymentInput, payment: Payment, payload: PaymentPayload, matched: PaymentRequirements): Promise<AcceptedPayment> {
  const { plan, eventPrefix } = input;
  const caip2 = NETWORKS[plan.network].caip2;
  let failure: string;
  try {
    const result = await ctx.gateway.settle(payload, matched);
    if (result.success && result.transaction) {
      crashPoint("after_settle");
      logEvent(`${eventPrefix}.settle_ok`, { network: caip2, payer: payment.payer, transaction: result.transaction, amount: plan.amountUnits.toString() });
      return { kind: "settled", payment: { ...payment, txSignature: result.transaction } };
    }
    failure = result.errorReason ?? "settlement_failed";
  } catch {
    failure = "settlement_error";
  }
  // A refusal is not proof that nothing moved (a confirmation timeout, or the same transaction already landed by a
  // process that died): ask the chain before telling the client that nothing was charged.
  const landed = await findLandedSettlement(ctx.gateway.facilitator, plan.network, payload).catch(() => null);
  if (landed?.state === "landed") {
    logEvent(`${eventPrefix}.settle_ok`, { network: caip2, payer: payment.payer, transaction: landed.transaction, amount: plan.amountUnits.toString(), recovered: failure });
    return landedSettlement(ctx, payment, landed.transaction);
  }
  if (landed === null) {
    // The chain cannot say: keep the claim (its lease makes a later retry resolve it) rather than risk a wrong answer.
    logEvent(`${eventPrefix}.settle_unknown`, { reason: failure, network: caip2, payment_id: payment.id }, "warn");
    throw new AppError("upstream_error", "the payment's settlement could not be confirmed; retry the same request later", { reason: failure });
  }
  await markSettlementFailed(ctx.db, payment.id, failure);
  logEvent(`${eventPrefix}.settle_failed`, { reason: failure, network: caip2 }, "warn");
  await recordFailure(ctx, caip2, "settle", failure);
  throw new AppError("payment_failed", "the payment could not be settled; nothing was charged", { reason: failure });
}

/**
 * A settlement found on chain for this claim. The same transaction can arrive under a different payload (other bytes
 * around the same signed transaction or authorization): if another payment already owns it, this one is a replay.
 */
async function landedSettlement(ctx: AppContext, payment: Payment, transaction: string): Promise<AcceptedPayment> {
  const owner = await ctx.db.payment.findUnique({ where: { txSignature: transaction } });
  if (owner && owner.id !== payment.id) {
    await markSettlementFailed(ctx.db, payment.id, "transaction_already_used");
    throw new AppError("payment_replay", "this payment's transaction was already used", { tx_signature: transaction });
  }
  return { kind: "settled", payment: { ...payment, txSignature: transaction } };
}

/**
 * Takes over a claim whose lease ran out (exactly one retry wins) and finishes it: if the settlement landed, the
 * payment is settled with that transaction; if the chain has no trace of it, it is settled now (the same Solana
 * transaction, or the same EIP-3009 authorization: neither can move money twice). Null when the claim is live.
 */
async function resumeStaleClaim(ctx: AppContext, input: AcceptPaymentInput, known: Payment, payload: PaymentPayload): Promise<AcceptedPayment | null> {
  const leaseMs = config().PAYMENT_LEASE_MS;
  if (Date.now() - known.updatedAt.getTime() < leaseMs) return null;
  if (!(await takeOverStaleClaim(ctx.db, known.id, leaseMs))) return null;
  const caip2 = NETWORKS[input.plan.network].caip2;
  const matched = ctx.gateway.match(input.plan.requirements, payload);
  const landed = await findLandedSettlement(ctx.gateway.facilitator, input.plan.network, payload).catch(() => null);
  if (landed === null || !matched) {
    // The chain could not be read (or the plan changed): leave the claim for a later retry.
    throw new AppError("payment_replay", "this payment is being recovered; retry the same request shortly");
  }
  logEvent(`${input.eventPrefix}.claim_recovered`, { network: caip2, payment_id: known.id, found: landed.state });
  if (landed.state === "landed") return landedSettlement(ctx, known, landed.transaction);
  if (landed.state === "failed") {
    await markSettlementFailed(ctx.db, known.id, "settlement_failed_on_chain");
    throw new AppError("payment_failed", "the payment's settlement failed on chain; nothing was charged", { reason: "settlement_failed_on_chain" });
  }
  return settleClaimed(ctx, input, known, payload, matched);
}

/** Counts a failure for the dashboard; never lets bookkeeping turn a 402 into a 500. */
async function recordFailure(ctx: AppContext, network: string, stage: "verify" | "settle", reason: string): Promise<void> {
  await ctx.db.paymentFailure.create({ data: { network, stage, reason: reason.slice(0, 100) } }).catch(() => undefined);
}

async function paymentError(
  ctx: AppContext,
  input: AcceptPaymentInput,
  code: "payment_required" | "payment_invalid",
  message: string,
  details: Record<string, unknown> = {},
): Promise<AppError> {
  const challenge = await ctx.gateway.paymentRequired(input.plan.requirements, { url: input.resourceUrl, description: input.description }, code);
  return new AppError(code, message, { ...details, challenge }, challengeHeaders(challenge));
}
