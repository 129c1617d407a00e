// A top-up's answer: whom its payment credited, how much, the credited agent's balance then, and the x402 receipt of
// its settlement. Given once, when the top-up is credited (by the request that paid, or by the sweeper for a late
// settlement nobody waited for), and kept: the payer's repeat of the request gets that answer back, never a balance
// read later (which only the agent's own signature may read) and never a new receipt.
import "server-only";
import type { AppContext } from "../context/app-context";
import type { Payment } from "../db";
import { logEvent } from "../log";
import { keptAnswerText, readKeptAnswer, type KeptAnswer } from "../pipeline/kept-answer";
import { formatUnitsAsUsdc } from "../verify";
import { settlementHeaders } from "../x402/payment-headers";
import { ANSWER_REPLAYED_HEADER } from "./answer-again";
import { keepTopUpAnswer } from "./payment-store";

type CreditedTopUp = Payment & { txSignature: string };

/** The top-up's first answer, as credited with `balanceUnits` after; kept on its payment for the payer's repeat. */
export async function answerTopUp(
  ctx: Pick<AppContext, "db" | "gateway" | "log">,
  p: CreditedTopUp,
  balanceUnits: bigint,
): Promise<KeptAnswer> {
  // The credit is what the payment bought, and it is given: the x402 receipt goes with the settlement.
  const routeReceipt = await ctx.gateway.offerReceipts.issueSettlementReceipt("topup", {
    transaction: p.txSignature,
    network: p.network,
    payer: p.payer,
  });
  const answer = { body: { ...topUpBody(p), balance_usdc: formatUnitsAsUsdc(balanceUnits) }, routeReceipt };
  await keepTopUpAnswer(ctx.db, p.id, keptAnswerText(answer)).catch((err: unknown) =>
    logEvent(ctx.log, "credits.answer_not_kept", { payment_id: p.id, reason: String(err).slice(0, 200) }, "warn"),
  );
  return answer;
}

/** A repeated top-up's answer: the kept first answer, or, when it is no longer kept, its facts without a balance or receipt. */
export function keptTopUpAnswer(p: CreditedTopUp): { body: unknown; headers: Record<string, string> } {
  const kept = readKeptAnswer(p.answer) ?? { body: topUpBody(p), routeReceipt: null };
  return { body: kept.body, headers: topUpHeaders(p, kept, { [ANSWER_REPLAYED_HEADER]: "true" }) };
}

/** A top-up answer's headers: the settlement's (with its x402 receipt) and the balance it reported. */
export function topUpHeaders(
  p: CreditedTopUp,
  answer: KeptAnswer,
  extra: Record<string, string>,
): Record<string, string> {
  const balance = answer.body.balance_usdc;
  return {
    ...settlementHeaders({
      transaction: p.txSignature,
      network: p.network,
      payer: p.payer,
      extensions: answer.routeReceipt?.extensions,
    }),
    ...(typeof balance === "string" ? { "X-Credit-Balance-Usdc": balance } : {}),
    ...extra,
  };
}

/** What a top-up's answer always says: whom its payment credited, and how much. */
function topUpBody(p: CreditedTopUp): Record<string, unknown> {
  return {
    object: "credit.topup",
    agent_pubkey: p.beneficiary ?? p.payer,
    payer: p.payer,
    network: p.network,
    amount_usdc: formatUnitsAsUsdc(p.units),
    tx_signature: p.txSignature,
  };
}
