// The prepaid route: admit a signed request (signature over the exact bytes → body → time window → rate limit →
// nonce), reserve the call's worst-case cost as a hold, then the shared pipeline serves the call from that hold and
// captures exactly its cost (or releases the hold when the upstream fails). Same ledger as the paid route, per network.
import "server-only";
import { randomUUID } from "node:crypto";
import type { AppContext } from "../context/app-context";
import { crashPoint } from "../env/crash-point";
import { whenDatabaseBack } from "../db/when-database-back";
import { AppError } from "../errors";
import { rateLimitIpHash } from "../http/client-ip";
import { parseJsonText } from "../http/read-json-body";
import { parseWith } from "../http/parse-with";
import { releaseHold, reserveCredit } from "../ledger/credit-holds";
import type { CallReservation, ServedCall, UpstreamJob } from "../pipeline/call-types";
import { chatJob } from "../pipeline/chat-job";
import { capWithinBudget, requireOfferedModel } from "../pipeline/model-gate";
import { admitNetwork } from "../pipeline/network-gate";
import { serveCall } from "../pipeline/serve-call";
import { lastStoredSettings, rememberStoredSettings, settingsFromStored } from "../settings/read-settings";
import type { Settings } from "../settings/setting-definitions";
import { worstCaseCostUnits } from "../upstream";
import { formatUnitsAsUsdc, parseUsdcToUnits, type NetworkRow } from "../verify";
import { admitAndHold, type AdmissionRequest, type HoldWithAdmission } from "./admit-signed-request";
import { inferenceRequestSchema, type InferenceRequest } from "../schemas/inference-request-schema";
import { PREPAID_CALL_SETTLEMENT } from "./prepaid-call-settlement";
import { authenticateSignedRequest, checkRequestWindow } from "./signed-request";

const INFERENCE_PATH = "/api/v1/inference";

/** A signed request's call, as its route parsed it: its replay fields, its network, and how it is planned. */
export interface PrepaidCall {
  nonce: string;
  timestamp: number;
  network?: string;
  /** The call under `settings` on `network`: its worst-case cost (the hold) and its upstream job; throws its refusal. */
  plan(ctx: AppContext, network: NetworkRow, settings: Settings): { holdUnits: bigint; job: UpstreamJob };
}

/**
 * A route that serves signed prepaid requests: the path its signatures name, and how its body (parsed JSON, after the
 * signature was checked over its bytes) becomes the prepaid call. Absent: this route's own.
 */
export interface PrepaidRoute {
  path: string;
  parse: (json: unknown) => PrepaidCall;
}

const INFERENCE_ROUTE: PrepaidRoute = {
  path: INFERENCE_PATH,
  parse: (json) => chatPrepaidCall(parseWith(inferenceRequestSchema, json)),
};

/** A prepaid chat completion: the model, its cap under the budget, and the hold its worst case needs. */
function chatPrepaidCall(body: InferenceRequest): PrepaidCall {
  return {
    nonce: body.nonce,
    timestamp: body.timestamp,
    network: body.network,
    plan(ctx, network, settings) {
      const model = requireOfferedModel(ctx.upstream, body.model, network, settings);
      const messages = body.messages ?? [{ role: "user" as const, content: body.prompt! }];
      // What the provider bills as prompt: the messages and the tool definitions.
      const prompt = [...messages, ...(body.tools ?? [])];
      const cap = capWithinBudget(model, prompt, body.max_tokens, budgetUnitsOf(body.max_cost_usdc));
      return { holdUnits: worstCaseCostUnits(model, prompt, cap), job: prepaidCall(body, model.id, messages, cap) };
    },
  };
}

/**
 * Serves one signed prepaid request. Throws AppError for every refusal, counted in `signet_calls_total` with its code;
 * nothing moves before the hold.
 */
export async function servePrepaidInference(
  ctx: AppContext,
  headers: Headers,
  rawBody: Uint8Array,
  route: PrepaidRoute = INFERENCE_ROUTE,
): Promise<ServedCall> {
  const admitted: { network: string } = { network: "" };
  let call: Admitted;
  try {
    call = await admitAndReserve(ctx, headers, rawBody, admitted, route);
  } catch (err) {
    if (err instanceof AppError)
      ctx.metrics.calls.inc({ route: "prepaid", network: admitted.network, outcome: "refused", code: err.code });
    throw err;
  }
  // From here serveCall counts the outcome (served, upstream_error, aborted).
  return serveCall(ctx, call.reservation, call.request);
}

type Admitted = { reservation: CallReservation; request: UpstreamJob };
type Body = PrepaidCall;

/** `admitted.network` is set (CAIP-2) once the request's network is known; a refusal before that has no network label. */
async function admitAndReserve(
  ctx: AppContext,
  headers: Headers,
  rawBody: Uint8Array,
  admitted: { network: string },
  route: PrepaidRoute,
): Promise<Admitted> {
  // SECURITY: the signature is checked over the exact bytes before any parsing.
  const agent = authenticateSignedRequest(ctx.config.baseUrl, headers, "POST", route.path, rawBody);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
  } catch {
    throw new AppError("invalid_request", "request body is not valid UTF-8");
  }
  const body = route.parse(parseJsonText(text));
  checkRequestWindow(body.timestamp, ctx.clock.now());
  const cfg = ctx.config;
  const leaseMs = cfg.PAYMENT_LEASE_MS;
  // The hold is worked out from the settings the last request read, and taken in the admission's statement only if
  // they are still the stored ones; otherwise (or when that plan refuses the call) the request's own settings decide.
  const guessed = lastStoredSettings(ctx.state) ?? { value: null };
  const guessedSettings = settingsFromStored(guessed.value, cfg, ctx.log);
  const guess = tryPlan(() => planCall(ctx, body, guessedSettings));
  const admit = (network: string, ip: AdmissionRequest["ip"], hold: HoldWithAdmission | null) =>
    admitAndHold(
      ctx.db,
      cfg,
      { agentPubkey: agent, nonce: body.nonce, limit: cfg.PREPAID_RATE_LIMIT_PER_MINUTE, network, ip },
      hold,
      ctx,
    );
  // The IP's hash is salted as the last request found the settings: a changed salt only starts a new window.
  const ip = { hash: rateLimitIpHash(headers, guessedSettings, cfg), limit: cfg.PREPAID_IP_RATE_LIMIT_PER_MINUTE };
  const guessedNetwork = guess?.network.caip2 ?? tryNetwork(ctx, guessedSettings, body);
  const holdId = randomUUID();
  let admission = await admit(
    guessedNetwork,
    ip,
    guess
      ? {
          request: { holdId, agentPubkey: agent, network: guess.network.caip2, units: guess.holdUnits, leaseMs },
          settings: guessed.value,
        }
      : null,
  ).catch((err: unknown) => {
    // The statement may have taken the hold before the database went away: it is released once the database is back
    // (nothing was charged; the client's retry is a new signed request), not when its lease runs out.
    whenDatabaseBack(
      ctx,
      err,
      { event: "call.hold_released_after_database_loss", fields: { inference_id: holdId } },
      () => releaseHold(ctx.db, holdId),
    );
    throw err;
  });
  rememberStoredSettings(ctx.state, admission.stored);
  const plan = admission.ok && admission.hold && guess ? guess : planCall(ctx, body, admission.settings, admitted);
  admitted.network = plan.network.caip2;
  // Credit was looked for on the guessed network; when the stored settings put the call on another, look there (the
  // IP was counted already).
  if (!admission.ok && plan.network.caip2 !== guessedNetwork) admission = await admit(plan.network.caip2, null, null);
  // SECURITY: an agent refused for want of credit claimed no nonce, so it never goes on to a hold.
  if (!admission.ok) throw insufficientCredits(plan, 0n);
  const hold = admission.hold ?? (await reserveCredit(ctx.db, agent, plan.network.caip2, plan.holdUnits, leaseMs));
  if (!hold.ok) throw insufficientCredits(plan, hold.balanceUnits);
  crashPoint(ctx.config, "after_hold");
  const pointsBefore = admission.hold ? admission.points : (hold.points ?? null);
  const reservation = {
    holdId: hold.holdId,
    agentPubkey: agent,
    network: plan.network.caip2,
    holdUnits: plan.holdUnits,
    settlement: PREPAID_CALL_SETTLEMENT,
    pointsBefore,
  };
  return { reservation, request: plan.job };
}

interface CallPlan {
  network: NetworkRow;
  holdUnits: bigint;
  job: UpstreamJob;
}

/** The call's network, model, cap and worst-case cost under `settings`; throws the request's refusal. */
function planCall(ctx: AppContext, body: Body, settings: Settings, admitted?: { network: string }): CallPlan {
  const network = ctx.config.networks.get(
    admitNetwork(ctx.log, ctx.config.networks, settings, body.network, "inference"),
  );
  if (admitted) admitted.network = network.caip2;
  return { network, ...body.plan(ctx, network, settings) };
}

function insufficientCredits(plan: CallPlan, balanceUnits: bigint): AppError {
  return new AppError(
    "insufficient_credits",
    `this call needs up to ${formatUnitsAsUsdc(plan.holdUnits)} USDC of free credit on ${plan.network.label}`,
    {
      balance_usdc: formatUnitsAsUsdc(balanceUnits),
      required_usdc: formatUnitsAsUsdc(plan.holdUnits),
    },
  );
}

/** The request's network under `settings` (CAIP-2), or "" (no agent's credit) when they refuse it. */
function tryNetwork(ctx: AppContext, settings: Settings, body: Body): string {
  try {
    return ctx.config.networks.get(admitNetwork(ctx.log, ctx.config.networks, settings, body.network, "inference"))
      .caip2;
  } catch {
    return "";
  }
}

/** The plan, or null when it refuses the call (the refusal is thrown again, after admission, from the real settings). */
function tryPlan(plan: () => CallPlan): CallPlan | null {
  try {
    return plan();
  } catch {
    return null;
  }
}

/** `max_cost_usdc`, a hard cap on the call's cost, in units; null when absent. */
export function budgetUnitsOf(maxCostUsdc: number | undefined): bigint | null {
  if (maxCostUsdc === undefined) return null;
  const budget = parseUsdcToUnits(String(maxCostUsdc));
  if (budget === null)
    throw new AppError("invalid_request", "max_cost_usdc: must have at most 6 decimals", { detail: "max_cost_usdc" });
  return budget;
}

function prepaidCall(
  body: InferenceRequest,
  modelId: string,
  messages: NonNullable<InferenceRequest["messages"]>,
  cap: number,
): UpstreamJob {
  return chatJob({
    completion: {
      model: modelId,
      messages,
      max_tokens: cap,
      ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
      ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
      ...(body.tools !== undefined ? { tools: body.tools } : {}),
      ...(body.tool_choice !== undefined ? { tool_choice: body.tool_choice } : {}),
      ...(body.parallel_tool_calls !== undefined ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
    },
    stream: body.stream === true,
    usageChunk: body.stream_options?.include_usage === true,
    prompt: body.messages ? { messages: body.messages } : { text: body.prompt! },
  });
}
