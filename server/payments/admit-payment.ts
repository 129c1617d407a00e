// Admitting a paid request's payment: the header read and planned against the request's network, checked (match,
// verify, allowlist) and claimed with the digest of the request it pays for, in one statement with the settings check
// and the payer's lane; then settled (settle-payment.ts), or, when seen before, resumed (resume-payment.ts). When the
// settings change under the request before anything was taken, the route's plan is worked out again here.
import "server-only";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { AppContext } from "../context/app-context";
import type { NetworkId } from "../verify";
import { familyFacts } from "../verify/chain-family-facts";
import { crashPoint } from "../env/crash-point";
import type { Payment } from "../db";
import { AppError } from "../errors";
import { CHAIN_UNAVAILABLE } from "../facilitator/chain-unavailable";
import { logEvent } from "../log";
import { timeStep } from "../metrics/registry";
import {
  lastStoredSettings,
  readStoredSettings,
  rememberStoredSettings,
  settingsFromStored,
} from "../settings/read-settings";
import type { Settings } from "../settings/setting-definitions";
import { classifyVerifyFailure } from "../x402/classify-verify-failure";
import { mismatchMessage } from "../x402/requirements-mismatch";
import { depositAddressFor } from "../x402/deposit-address";
import { paymentIdempotencyKey } from "../x402/idempotency-key";
import { readPaymentId } from "../x402/payment-id";
import { decodePaymentHeader, readPaymentHeader } from "../x402/payment-headers";
import type {
  AdmitPaymentInput,
  AdmittedOutcome,
  PaidRequest,
  PaidRequestOutcome,
  PaidRequestState,
  PaymentPlan,
  Replan,
} from "./paid-request-types";
import { paidRoute } from "../x402/paid-routes";
import {
  chainUnavailable,
  eventNames,
  paymentError,
  paymentIdConflict,
  recordFailure,
  refused,
} from "./payment-answers";
import { SETTLEMENT_EXPIRED } from "../ledger/payment-states";
import { findOrClaimPayment, readPaymentByKey } from "./payment-store";
import { resumeKnown } from "./resume-payment";
import { laneSource, settleClaimed } from "./settle-payment";
import { checksBeganMs } from "./settlement-lane";

/** Settings changes a request may meet before it is refused (retry): each costs a verification. */
const MAX_REPLANS = 3;

/**
 * Plans a paid request with the route's `plan` and takes its payment through the state machine. A refusal planned from
 * guessed settings, and a claim that met changed settings, are planned again with the stored ones (the claim bounds
 * how often). Never throws an expected payment outcome; throws what `plan` throws.
 */
export async function admitPayment<P extends { plan: PaymentPlan }>(
  ctx: AppContext,
  request: PaidRequest<P>,
): Promise<{ planned: P; outcome: AdmittedOutcome }> {
  let replan: Replan | undefined;
  for (;;) {
    const state = await readPaidRequestState(ctx, request.headers, replan);
    let planned: P;
    try {
      planned = await request.plan(state);
    } catch (err) {
      // A refusal worked out from guessed settings stands only once the stored settings say the same.
      if (err instanceof AppError && state.guessed) {
        replan = await replanWithStoredSettings(ctx, state);
        continue;
      }
      throw err;
    }
    const outcome = await admitPlanned(ctx, { ...request.admission(planned), state, plan: planned.plan });
    // The settings changed under this request before anything was taken: plan it again with the stored ones.
    if (outcome.kind === "stale-settings") {
      replan = outcome.replan;
      continue;
    }
    return { planned, outcome };
  }
}

async function readPaidRequestState(ctx: AppContext, headers: Headers, replan?: Replan): Promise<PaidRequestState> {
  const header = readPaymentHeader(headers);
  const decoded = header === null ? null : decodePaymentHeader(header, ctx.config.networks);
  const guess = replan ? { value: replan.stored } : decoded?.ok ? lastStoredSettings(ctx.state) : undefined;
  const stored = guess ? guess.value : await readStoredSettings(ctx.db, ctx.state);
  const settings = settingsFromStored(stored, ctx.config, ctx.log);
  const payment = decoded?.ok
    ? { ok: true as const, payload: decoded.payload, key: paymentIdempotencyKey(decoded.payload) }
    : decoded;
  return {
    settings,
    stored,
    replans: replan?.replans ?? 0,
    guessed: guess !== undefined && replan === undefined,
    payment,
  };
}

/** The settings read now, to plan again a request whose guessed settings refused it before its claim's statement. */
async function replanWithStoredSettings(ctx: AppContext, state: PaidRequestState): Promise<Replan> {
  return { stored: await readStoredSettings(ctx.db, ctx.state), replans: state.replans };
}

/** Builds the requirement for `amountUnits` on a network already admitted (kill switch checked). */
export async function planPayment(
  ctx: AppContext,
  settings: Settings,
  network: NetworkId,
  amountUnits: bigint,
): Promise<PaymentPlan> {
  const payTo = depositAddressFor(ctx, settings, network);
  if (familyFacts(ctx.config.networks.get(network)).depositNeedsTokenAccount) {
    await ctx.ensureDepositReady(network, payTo).catch(() => {
      throw new AppError("chain_unavailable", `the ${ctx.config.networks.get(network).label} RPC could not be reached`);
    });
  }
  const requirements = await ctx.gateway.requirements(network, amountUnits, payTo);
  return { network, requirements, payTo, amountUnits };
}

/** Takes the payment in the request's header through the state machine once, as planned. */
async function admitPlanned(ctx: AppContext, input: AdmitPaymentInput): Promise<PaidRequestOutcome> {
  const outcome = await admitPaymentOnce(ctx, input);
  if (outcome.kind === "refused" || outcome.kind === "replay" || outcome.kind === "pending") {
    ctx.metrics.calls.inc({
      route: paidRoute(input.route).callsLabel,
      network: ctx.config.networks.get(input.plan.network).caip2,
      outcome: "refused",
      code: outcome.error.code,
    });
  }
  return outcome;
}

async function admitPaymentOnce(ctx: AppContext, input: AdmitPaymentInput): Promise<PaidRequestOutcome> {
  const { plan } = input;
  const events = eventNames(input.route);
  const caip2 = ctx.config.networks.get(plan.network).caip2;
  const decoded = input.state.payment;
  if (decoded === null) {
    return {
      kind: "challenge",
      error: await paymentError(ctx, input, "this route is paid; pay the challenge and retry with a payment header"),
    };
  }
  if (!decoded.ok) {
    logEvent(ctx.log, events.verifyFailed, { reason: "payment_invalid", detail: decoded.reason, network: caip2 });
    await recordFailure(ctx, caip2, "verify", "payment_invalid");
    return refused(
      await paymentError(ctx, input, `the payment header is ${decoded.reason.replace("_", " ")}`, decoded.reason),
    );
  }
  const paymentId = readPaymentId(decoded.payload);
  if (!paymentId.ok) {
    logEvent(ctx.log, events.verifyFailed, { reason: "invalid_payment_id", detail: paymentId.reason, network: caip2 });
    return refused(
      new AppError("invalid_payment_id", `the payment-identifier extension is malformed: ${paymentId.detail}`, {
        reason: paymentId.reason,
      }),
    );
  }
  return checkAndClaim(ctx, input, decoded.payload, decoded.key, paymentId.id);
}

/**
 * Everything the claim needs is worked out first (match, verify, allowlist); then ONE statement checks that the
 * settings it was worked out from are still stored, finds the payment if it was seen before, and claims it (taking the
 * payer's settlement lane) only if it was not and the checks passed. A payment seen before is resumed whatever this
 * request's checks said: its retry does not depend on the chain answering a verification again.
 */
async function checkAndClaim(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payload: PaymentPayload,
  key: string,
  clientPaymentId: string | null,
): Promise<PaidRequestOutcome> {
  const { plan } = input;
  const caip2 = ctx.config.networks.get(plan.network).caip2;
  const checkedFrom = ctx.clock.monotonic();
  const check = await checkPayment(ctx, input, payload);
  const claim = check.ok
    ? {
        payment: {
          idempotencyKey: key,
          network: caip2,
          payer: check.payer,
          payTo: plan.payTo,
          units: plan.amountUnits,
          purpose: input.purpose,
          route: input.route,
          clientPaymentId,
          requestDigest: input.requestDigest,
          beneficiary: input.beneficiary ?? null,
        },
        source: laneSource(caip2, payload, check.payer),
      }
    : null;
  const found = await findOrClaimPayment(ctx.db, {
    key,
    expected: input.state.stored,
    claim,
    leaseMs: ctx.config.PAYMENT_LEASE_MS,
    clock: ctx.clock,
  });
  if (found.stale) {
    rememberStoredSettings(ctx.state, found.stored);
    if (input.state.replans >= MAX_REPLANS) {
      return refused(
        new AppError(
          "rate_limited",
          "the service's settings kept changing during this request; nothing was charged, retry",
          { reason: "settings_changed" },
          { "Retry-After": "1" },
        ),
      );
    }
    return { kind: "stale-settings", replan: { stored: found.stored, replans: input.state.replans + 1 } };
  }
  if (found.claimed) {
    if (!check.ok || !claim) throw new Error("a payment was claimed without passing its checks");
    crashPoint(ctx.config, "after_verify");
    // The database's clock when this request's checks began, at the latest: the claim's statement read its now() before
    // its answer came back, so that clock less everything since the checks began is no later than their start. That
    // estimate is early by the answer's trip back (and the event loop's delay): a send this process saw commit before
    // the checks began bounds it from below. A send of the payer the lane saw at or after it may not have been seen by
    // this request's verification.
    const checkedAtMs = checksBeganMs(
      ctx.state.laneSends,
      claim.source,
      found.nowMs - (found.answeredAt - checkedFrom),
      checkedFrom,
    );
    return settleClaimed(ctx, input, found.payment, payload, check.matched, checkedAtMs, found.lane);
  }
  return answerUnclaimed(ctx, input, payload, key, {
    check,
    existing: found.existing,
    conflict: found.conflict,
    clientPaymentId,
  });
}

/** The claim's statement claimed nothing: the payment was seen before, or its id is another's, or its checks failed. */
async function answerUnclaimed(
  ctx: AppContext,
  input: AdmitPaymentInput,
  payload: PaymentPayload,
  key: string,
  found: { check: PaymentCheck; existing: Payment | null; conflict: Payment | null; clientPaymentId: string | null },
): Promise<PaidRequestOutcome> {
  let known = found.existing;
  if (found.check.ok && (known === null || known.status === "failed")) {
    // Checks passed and nothing was claimed: a concurrent claim committed after this statement's snapshot.
    known = (await readPaymentByKey(ctx.db, key)) ?? known;
  }
  if (known?.status === "expired") {
    // This payment's transfer can never land any more (a sweeper may have found it so): the same answer as its retry.
    return refused(
      await paymentError(
        ctx,
        input,
        "the payment's transaction expired before it landed; nothing was charged, pay the new challenge",
        SETTLEMENT_EXPIRED,
      ),
    );
  }
  // The same payment sent again is the same payment, whatever id it carries now: the id bound at its claim stays.
  if (known && known.status !== "failed") return resumeKnown(ctx, input, known, payload);
  if (found.conflict) return paymentIdConflict(ctx.log, input, found.clientPaymentId!, found.conflict);
  if (!found.check.ok) return found.check.refuse();
  // Claimed and failed again by a concurrent request in between: nothing of this request's was taken.
  return { kind: "replay", error: new AppError("payment_replay", "this payment is already being processed") };
}

/** A payment's checks before its claim: passed (the verified payer), or the refusal to answer if it was never seen. */
type PaymentCheck =
  { ok: true; payer: string; matched: PaymentRequirements } | { ok: false; refuse(): Promise<PaidRequestOutcome> };

/**
 * Matches the payment to the plan, verifies it with the facilitator (the payer is the one it verified, never a field
 * the client claims) and applies the mainnet allowlist. A refusal is returned as a thunk: it logs, counts and builds
 * its challenge only once the claim's statement has shown the payment was never seen before.
 */
async function checkPayment(ctx: AppContext, input: AdmitPaymentInput, payload: PaymentPayload): Promise<PaymentCheck> {
  const { plan } = input;
  const events = eventNames(input.route);
  const caip2 = ctx.config.networks.get(plan.network).caip2;
  const matched = ctx.gateway.match(plan.requirements, payload);
  if (!matched) {
    return {
      ok: false,
      async refuse() {
        logEvent(ctx.log, events.verifyFailed, {
          reason: "payment_invalid",
          detail: "requirements_mismatch",
          network: caip2,
        });
        await recordFailure(ctx, caip2, "verify", "payment_invalid");
        return refused(
          await paymentError(
            ctx,
            input,
            mismatchMessage(plan.requirements, (payload as { accepted?: unknown }).accepted, {
              v1: payload.x402Version === 1,
            }),
            "requirements_mismatch",
          ),
        );
      },
    };
  }
  let verdict: {
    isValid: boolean;
    invalidReason?: string | undefined;
    invalidMessage?: string | undefined;
    payer?: string | undefined;
  };
  try {
    verdict = await timeStep(ctx.metrics, "verify", caip2, () => ctx.gateway.verify(payload, matched));
  } catch (err) {
    return { ok: false, refuse: async () => refused(chainUnavailable(ctx.log, events.verifyFailed, caip2, err)) };
  }
  const invalidMessage = verdict.invalidMessage;
  if (invalidMessage?.startsWith(CHAIN_UNAVAILABLE))
    return {
      ok: false,
      refuse: async () => refused(chainUnavailable(ctx.log, events.verifyFailed, caip2, invalidMessage)),
    };
  if (!verdict.isValid || !verdict.payer) {
    const invalidReason = verdict.invalidReason;
    return {
      ok: false,
      async refuse() {
        const reason = await classifyVerifyFailure(
          payload,
          invalidReason,
          ctx.gateway.facilitator.rpcs[plan.network],
          invalidMessage,
        );
        logEvent(ctx.log, events.verifyFailed, { reason, detail: invalidReason, network: caip2 });
        await recordFailure(ctx, caip2, "verify", reason);
        if (reason === "payment_expired") {
          // What the facilitator said is for the log; the client only needs to know it can pay again, safely.
          return refused(
            await paymentError(
              ctx,
              input,
              "the payment expired before it could settle (its blockhash or authorization is no longer valid); nothing was charged: pay the new challenge",
              reason,
            ),
          );
        }
        return refused(
          await paymentError(
            ctx,
            input,
            `payment verification failed: ${reason}`,
            reason,
            invalidReason ? { detail: invalidReason } : {},
          ),
        );
      },
    };
  }
  // Receipts, the ledger and the allowlist use one form of an address (EVM's is case-insensitive: lower case).
  const payer = familyFacts(ctx.config.networks.get(plan.network)).normalizeAddress(verdict.payer);
  // The mainnet allowlist applies to the verified payer.
  if (
    ctx.config.networks.get(plan.network).isMainnet &&
    input.state.settings.allowedAgents.size > 0 &&
    !input.state.settings.allowedAgents.has(payer)
  ) {
    return {
      ok: false,
      async refuse() {
        logEvent(ctx.log, "agent.not_allowed", { agent: payer, network: caip2 });
        return refused(new AppError("agent_not_allowed", "this agent is not allowed to pay on mainnet"));
      },
    };
  }
  return { ok: true, payer, matched };
}
