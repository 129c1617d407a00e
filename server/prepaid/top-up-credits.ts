// Credit top-ups through x402: `POST /api/v1/credits { amount_usdc, network?, agent_pubkey? }` answers 402
// for exactly that amount; once settled, the whole amount is credited on that network to `agent_pubkey`, or to the
// verified payer when it is absent. Same facilitator and the same exactly-once rules as the chat route; a replayed
// payment is refused. On Base the payer is a 0x address, which cannot sign prepaid requests, so there `agent_pubkey`
// (the Ed25519 key that will spend the credit) is required.
import "server-only";
import type { AppContext } from "../context/app-context";
import { AppError } from "../errors";
import { formatUnitsAsUsdc, parseUsdcToUnits } from "../verify";
import { admitPayment, planPayment } from "../payments/admit-payment";
import type { PaymentPlan } from "../payments/paid-request-types";
import type { Settings } from "../settings/setting-definitions";
import { familyFacts } from "../verify/chain-family-facts";
import { admitNetwork } from "../pipeline/network-gate";
import type { TopUpRequest } from "../schemas/top-up-request-schema";
import { answerTopUp, keptTopUpAnswer, topUpHeaders } from "../payments/top-up-answer";
import { topUpRequestDigest } from "../x402/request-digest";

/** Takes the top-up payment; its settlement credits the whole amount, in the same statement that marks it used. */
export async function topUpCredits(
  ctx: AppContext,
  body: TopUpRequest,
  headers: Headers,
  resourceUrl: string,
): Promise<{ body: unknown; headers: Record<string, string> }> {
  const { outcome } = await admitPayment(ctx, {
    headers,
    plan: (state) => planTopUp(ctx, body, state.settings),
    admission: ({ amountUnits, plan }) => ({
      resourceUrl,
      description: `Signet prepaid credit (${formatUnitsAsUsdc(amountUnits)} USDC)`,
      purpose: "topup",
      route: "topup",
      requestDigest: topUpRequestDigest({ amountUnits, network: plan.network, beneficiary: body.agent_pubkey ?? null }),
      ...(body.agent_pubkey !== undefined ? { beneficiary: body.agent_pubkey } : {}),
    }),
  });
  if (outcome.kind === "answered") {
    // The same top-up again after it was credited: its first answer again (the balance it reported then, and the x402
    // receipt issued then), never a second credit, and nothing the first answer did not tell.
    return keptTopUpAnswer(outcome.payment);
  }
  if (outcome.kind !== "settled") {
    if (outcome.kind === "retry-unserved") throw new AppError("payment_replay", "this payment was already used");
    throw outcome.error;
  }
  const answer = await answerTopUp(ctx, outcome.payment, outcome.balanceUnits);
  return { body: answer.body, headers: topUpHeaders(outcome.payment, answer, {}) };
}

/** The top-up's amount and payment plan under `settings`; throws its refusal. */
async function planTopUp(
  ctx: AppContext,
  body: TopUpRequest,
  settings: Settings,
): Promise<{ amountUnits: bigint; plan: PaymentPlan }> {
  const amountUnits = parseUsdcToUnits(String(body.amount_usdc));
  const maxUnits = parseUsdcToUnits(ctx.config.PREPAID_TOPUP_MAX_USDC);
  if (amountUnits === null)
    throw new AppError("invalid_request", "amount_usdc: must have at most 6 decimals", { detail: "amount_usdc" });
  if (maxUnits === null) throw new AppError("server_misconfigured", "PREPAID_TOPUP_MAX_USDC is not a USDC amount");
  if (amountUnits < settings.flatPriceUnits || amountUnits > maxUnits) {
    throw new AppError(
      "invalid_request",
      `amount_usdc: must be between ${formatUnitsAsUsdc(settings.flatPriceUnits)} and ${formatUnitsAsUsdc(maxUnits)}`,
      { detail: "amount_usdc" },
    );
  }
  const network = admitNetwork(ctx.log, ctx.config.networks, settings, body.network, "credits");
  // A payer whose key cannot sign prepaid calls (an EVM address) names the Ed25519 key that will spend the credit.
  if (!familyFacts(ctx.config.networks.get(network)).payerSignsPrepaid && body.agent_pubkey === undefined) {
    throw new AppError(
      "invalid_request",
      `agent_pubkey: required on ${ctx.config.networks.get(network).label}, the Ed25519 key that will spend the credit`,
      { detail: "agent_pubkey" },
    );
  }
  return { amountUnits, plan: await planPayment(ctx, settings, network, amountUnits) };
}
