// Taking one x402 payment, shared by the chat route and the credit top-up route: plan the requirement for a network
// and amount, then verify → payer → allowlist → claim → settle, in the seed's order. The caller decides what a
// settled payment buys; a payment seen before is handed back as `known` for the caller's replay rules.
import type { PaymentRequirements } from "@x402/core/types";
import { ensureDepositReady, type AppContext } from "../app-context";
import { NETWORKS, resolveNetwork, type NetworkId } from "../chain/networks";
import type { Payment } from "../db";
import { AppError } from "../errors";
import { logEvent } from "../log";
import { claimPayment, findPaymentByPayloadHash, markSettlementFailed, type PaymentPurpose } from "../ledger/payment-records";
import type { Settings } from "../settings/setting-definitions";
import { classifyVerifyFailure } from "./classify-verify-failure";
import { paymentPayloadHash } from "./payload-hash";
import { challengeHeaders, decodePaymentHeader, readPaymentHeader } from "./payment-headers";

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
  if (info.family === "evm") {
    // Base is optional for a deployment: without its RPC the network is simply not offered.
    if (!ctx.gateway.supports(network)) throw new AppError("network_not_supported", `${info.label} payments are not offered by this service`);
    // One EVM key pays the gas and receives, on every Base network (checked against SERVICE_EVM_DEPOSIT_ADDRESS).
    const payTo = ctx.gateway.facilitator.evm!.address;
    const requirements = await ctx.gateway.requirements(network, amountUnits, payTo);
    return { network, requirements, payTo, amountUnits };
  }
  if (!ctx.gateway.supports(network)) throw new AppError("server_misconfigured", `no RPC is configured for ${info.label}`);
  const payTo = info.isMainnet ? settings.mainnetDepositAddress : (settings.depositAddress ?? ctx.gateway.facilitator.address);
  if (!payTo) throw new AppError("server_misconfigured", "no deposit address is configured for this network");
  if (!info.isMainnet && payTo !== ctx.gateway.facilitator.address) {
    throw new AppError("server_misconfigured", "the deposit address does not match the facilitator key");
  }
  await ensureDepositReady(ctx.gateway, network, payTo).catch(() => {
    throw new AppError("upstream_error", `the ${info.label} RPC could not be reached`);
  });
  const requirements = await ctx.gateway.requirements(network, amountUnits, payTo);
  return { network, requirements, payTo, amountUnits };
}

export interface AcceptPaymentInput {
  plan: PaymentPlan;
  settings: Settings;
  headers: Headers;
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
  const header = readPaymentHeader(input.headers);
  if (header === null) throw await paymentError(ctx, input, "payment_required", "this route is paid; pay the challenge and retry with a payment header");
  const decoded = decodePaymentHeader(header);
  if (!decoded.ok) {
    logEvent(`${eventPrefix}.verify_failed`, { reason: "payment_invalid", detail: decoded.reason, network: caip2 });
    await recordFailure(ctx, caip2, "verify", "payment_invalid");
    throw await paymentError(ctx, input, "payment_invalid", `the payment header is ${decoded.reason.replace("_", " ")}`, { reason: decoded.reason });
  }
  const payload = decoded.payload;
  const payloadHash = paymentPayloadHash(payload);
  const known = await findPaymentByPayloadHash(ctx.db, payloadHash);
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
  if (NETWORKS[plan.network].isMainnet && input.settings.allowedAgents.size > 0 && !input.settings.allowedAgents.has(payer)) {
    logEvent("agent.not_allowed", { agent: payer, network: caip2 });
    throw new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet");
  }

  // Claim before the first await that moves money (STYLE §7).
  const claim = await claimPayment(ctx.db, { payloadHash, network: caip2, payer, payTo: plan.payTo, units: plan.amountUnits, purpose: input.purpose });
  if (!claim.claimed) return { kind: "known", payment: claim.existing };

  let failure: string;
  try {
    const result = await ctx.gateway.settle(payload, matched);
    if (result.success && result.transaction) {
      logEvent(`${eventPrefix}.settle_ok`, { network: caip2, payer, transaction: result.transaction, amount: plan.amountUnits.toString() });
      return { kind: "settled", payment: { ...claim.payment, txSignature: result.transaction } };
    }
    failure = result.errorReason ?? "settlement_failed";
  } catch {
    failure = "settlement_error";
  }
  await markSettlementFailed(ctx.db, claim.payment.id, failure);
  logEvent(`${eventPrefix}.settle_failed`, { reason: failure, network: caip2 }, "warn");
  await recordFailure(ctx, caip2, "settle", failure);
  throw new AppError("payment_failed", "the payment could not be settled; nothing was charged", { reason: failure });
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
