// The paid chat call, in the seed's order (§1, §3): challenge → verify → payer → allowlist → claim → settle → credit
// → inference → debit + log + receipt → 200. Every exit is a stable error code; money only moves in the ledger
// module's transactions, and a payment is claimed in the database before settlement moves anything.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ensureDepositReady, type AppContext } from "../app-context";
import { NETWORKS, resolveNetwork, type NetworkId } from "../chain/networks";
import { AppError } from "../errors";
import { logEvent } from "../log";
import { operatorKeypair } from "../keys/service-keys";
import { buildReceipt } from "../receipts/build-receipt";
import { encodeReceiptHeader, signReceipt } from "../receipts/sign-receipt";
import type { Receipt } from "../receipts/receipt-types";
import { readSettings } from "../settings/read-settings";
import type { Settings } from "../settings/setting-definitions";
import { beginServingUnserved, claimPayment, findPaymentByPayloadHash, markSettlementFailed, markUnserved } from "../ledger/payment-records";
import { getBalance, recordSettlement } from "../ledger/record-settlement";
import { recordInference } from "../ledger/record-inference";
import { formatUnitsAsUsdc } from "../verify";
import { decodePaymentHeader, readPaymentHeader, settlementHeaders, challengeHeaders } from "../x402/payment-headers";
import { paymentPayloadHash } from "../x402/payload-hash";
import { classifyVerifyFailure } from "../x402/classify-verify-failure";
import type { Payment } from "../db";
import { checkModelAllowed } from "./check-model";
import type { ChatRequest } from "./chat-request-schema";
import { runCompletion, type CompletionResult } from "./run-completion";

export interface PaidChatInput {
  body: ChatRequest;
  headers: Headers;
  /** The public URL of the resource, for the challenge. */
  resourceUrl: string;
}

export interface PaidChatResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface PaidCallPlan {
  settings: Settings;
  network: NetworkId;
  requirements: PaymentRequirements;
  payTo: string;
  priceUnits: bigint;
}

/** Serves one chat request on the paid route. Throws AppError for every refusal. */
export async function servePaidChat(ctx: AppContext, input: PaidChatInput): Promise<PaidChatResult> {
  const plan = await planPaidCall(ctx, input.body);
  const header = readPaymentHeader(input.headers);
  if (header === null) {
    throw await paymentError(ctx, plan, input, "payment_required", "this route is paid per call; pay the challenge and retry with a payment header");
  }
  const decoded = decodePaymentHeader(header);
  if (!decoded.ok) {
    logEvent("chat.verify_failed", { reason: "payment_invalid", detail: decoded.reason, network: NETWORKS[plan.network].caip2 });
    throw await paymentError(ctx, plan, input, "payment_invalid", `the payment header is ${decoded.reason.replace("_", " ")}`, { reason: decoded.reason });
  }
  const payload = decoded.payload;
  const payloadHash = paymentPayloadHash(payload);

  const known = await findPaymentByPayloadHash(ctx.db, payloadHash);
  if (known && known.status !== "failed") return handleKnownPayment(ctx, input, known);

  const matched = ctx.gateway.match(plan.requirements, payload);
  if (!matched) {
    logEvent("chat.verify_failed", { reason: "payment_invalid", detail: "requirements_mismatch", network: NETWORKS[plan.network].caip2 });
    throw await paymentError(ctx, plan, input, "payment_invalid", "the payment does not match the challenge (amount, asset, payee or network)", {
      reason: "requirements_mismatch",
    });
  }

  // 1–2. Verify with the facilitator; the payer is the one it verified, never a field the client claims.
  const verdict = await ctx.gateway.verify(payload, matched).catch(() => ({ isValid: false, invalidReason: "verification_error", payer: undefined }));
  if (!verdict.isValid || !verdict.payer) {
    const reason = await classifyVerifyFailure(payload, verdict.invalidReason, ctx.gateway.facilitator.rpcs[plan.network]);
    logEvent("chat.verify_failed", { reason, detail: verdict.invalidReason, network: NETWORKS[plan.network].caip2 });
    throw await paymentError(ctx, plan, input, "payment_invalid", `payment verification failed: ${reason}`, {
      reason,
      ...(verdict.invalidReason ? { detail: verdict.invalidReason } : {}),
    });
  }
  const payer = verdict.payer;

  // 3. The mainnet allowlist applies to the verified payer (the seed's §5).
  if (NETWORKS[plan.network].isMainnet && plan.settings.allowedAgents.size > 0 && !plan.settings.allowedAgents.has(payer)) {
    logEvent("agent.not_allowed", { agent: payer, network: NETWORKS[plan.network].caip2 });
    throw new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet");
  }

  // Claim before the first await that moves money (STYLE §7).
  const claim = await claimPayment(ctx.db, {
    payloadHash,
    network: NETWORKS[plan.network].caip2,
    payer,
    payTo: plan.payTo,
    units: plan.priceUnits,
    purpose: "chat",
  });
  if (!claim.claimed) return handleKnownPayment(ctx, input, claim.existing);
  const payment = claim.payment;

  // 4. Settle.
  const settled = await settle(ctx, payload, matched, payment.id);
  logEvent("chat.settle_ok", { network: payment.network, payer, transaction: settled, amount: payment.units.toString() });
  await recordSettlement(ctx.db, { paymentId: payment.id, txSignature: settled, agentPubkey: payer, network: payment.network, units: payment.units });

  return serveFromPayment(ctx, input, { ...payment, txSignature: settled, status: "settled" });
}

async function planPaidCall(ctx: AppContext, body: ChatRequest): Promise<PaidCallPlan> {
  const settings = await readSettings(ctx.db);
  const network = body.network === undefined ? settings.defaultNetwork : resolveNetwork(body.network, settings.defaultNetwork);
  if (network === null) throw new AppError("invalid_network", "network must be one of mainnet, devnet, base, base-sepolia (or a CAIP-2 id)", { detail: "network" });
  const info = NETWORKS[network];
  if (info.family === "evm") throw new AppError("network_not_supported", `${info.label} payments are not supported yet`);
  if (info.isMainnet && !settings.mainnetEnabled) {
    logEvent("mainnet.disabled", { network: info.caip2 });
    throw new AppError("mainnet_disabled", "mainnet is disabled by the operator");
  }
  if (settings.flatPriceUnits > settings.maxPriceUnits) {
    throw new AppError("server_misconfigured", "the flat price is above the price ceiling; no payment is requested");
  }
  const payTo = info.isMainnet ? settings.mainnetDepositAddress : (settings.depositAddress ?? ctx.gateway.facilitator.address);
  if (!payTo) throw new AppError("server_misconfigured", "no deposit address is configured for this network");
  if (!info.isMainnet && payTo !== ctx.gateway.facilitator.address) {
    throw new AppError("server_misconfigured", "the deposit address does not match the facilitator key");
  }
  if (!ctx.gateway.supports(network)) throw new AppError("server_misconfigured", `no RPC is configured for ${info.label}`);
  checkModelAllowed(ctx.upstream, body, settings.flatPriceUnits);
  await ensureDepositReady(ctx.gateway, network, payTo).catch(() => {
    throw new AppError("upstream_error", `the ${info.label} RPC could not be reached`);
  });
  const requirements = await ctx.gateway.requirements(network, settings.flatPriceUnits, payTo);
  return { settings, network, requirements, payTo, priceUnits: settings.flatPriceUnits };
}

/** A 402 carrying the challenge in the body and in both headers. */
async function paymentError(
  ctx: AppContext,
  plan: PaidCallPlan,
  input: PaidChatInput,
  code: "payment_required" | "payment_invalid",
  message: string,
  details: Record<string, unknown> = {},
): Promise<AppError> {
  const challenge = await ctx.gateway.paymentRequired(plan.requirements, { url: input.resourceUrl, description: "Signet chat completion (one call)" }, code);
  return new AppError(code, message, { ...details, challenge }, challengeHeaders(challenge));
}

async function settle(ctx: AppContext, payload: PaymentPayload, requirements: PaymentRequirements, paymentId: string): Promise<string> {
  let failure: string;
  try {
    const result = await ctx.gateway.settle(payload, requirements);
    if (result.success && result.transaction) return result.transaction;
    failure = result.errorReason ?? "settlement_failed";
  } catch {
    failure = "settlement_error";
  }
  await markSettlementFailed(ctx.db, paymentId, failure);
  logEvent("chat.settle_failed", { reason: failure, network: requirements.network }, "warn");
  throw new AppError("payment_failed", "the payment could not be settled; nothing was charged", { reason: failure });
}

/** A payment header seen before: replay of a served payment, a retry of an unserved one, or one in flight. */
async function handleKnownPayment(ctx: AppContext, input: PaidChatInput, payment: Payment): Promise<PaidChatResult> {
  if (payment.status === "unserved" && (await beginServingUnserved(ctx.db, payment.id))) {
    return serveFromPayment(ctx, input, { ...payment, status: "serving" });
  }
  const message =
    payment.status === "served"
      ? "this payment was already used for a call"
      : "this payment is already being processed";
  throw new AppError("payment_replay", message, payment.txSignature ? { tx_signature: payment.txSignature } : {});
}

/** Steps 5–8 for a settled (or unserved, being retried) payment. */
async function serveFromPayment(ctx: AppContext, input: PaidChatInput, payment: Payment): Promise<PaidChatResult> {
  const txSignature = payment.txSignature!;
  let completion: CompletionResult;
  try {
    completion = await runCompletion(ctx.upstream, input.body);
  } catch (err) {
    await markUnserved(ctx.db, payment.id, err instanceof AppError ? err.code : "upstream_error");
    const balance = await getBalance(ctx.db, payment.payer, payment.network);
    throw new AppError(
      "upstream_error",
      "the model provider failed after your payment settled; the payment is kept as credit and the same payment header can be sent again once",
      { tx_signature: txSignature, balance_usdc: formatUnitsAsUsdc(balance) },
    );
  }
  const operator = operatorKeypair();
  const recorded = await recordInference(ctx.db, {
    agentPubkey: payment.payer,
    network: payment.network,
    route: "chat",
    model: completion.model,
    upstream: completion.upstream,
    costUnits: completion.costUnits,
    latencyMs: completion.latencyMs,
    paymentId: payment.id,
    txSignature,
    priceUnits: payment.units,
    signReceipt: ({ inferenceId, pointsTotal, timestampMs }): Receipt =>
      signReceipt(
        buildReceipt({
          agentPubkey: payment.payer,
          upstream: completion.upstream,
          model: completion.model,
          costUnits: completion.costUnits,
          prompt: { messages: input.body.messages },
          responseText: completion.content,
          timestampMs,
          inferenceId,
          pointsTotal,
          payment: { amountUnits: payment.units, txSignature, network: payment.network, payTo: payment.payTo },
        }),
        operator,
      ),
  });
  return {
    status: 200,
    body: completion.body(recorded.receipt.inference_id as string),
    headers: {
      "X-Service-Receipt": encodeReceiptHeader(recorded.receipt),
      ...settlementHeaders({ transaction: txSignature, network: payment.network, payer: payment.payer }),
      "X-Credit-Balance-Usdc": formatUnitsAsUsdc(recorded.balanceUnits),
    },
  };
}
