// The prepaid route (issue #4): signature → body → window → rate limit → nonce → hold the worst case → inference →
// capture the actual cost (or release on failure) with the receipt. Same ledger as the paid route, per network.
import type { AppContext } from "../app-context";
import { NETWORKS, resolveNetwork } from "../chain/networks";
import { config } from "../env";
import { AppError } from "../errors";
import { logEvent } from "../log";
import { parseJsonText } from "../http/read-json-body";
import { parseWith } from "../http/handle-route";
import { operatorKeypair } from "../keys/service-keys";
import { buildReceipt } from "../receipts/build-receipt";
import { encodeReceiptHeader, signReceipt } from "../receipts/sign-receipt";
import { captureHold, placeHold, releaseHold } from "../ledger/credit-holds";
import { completionCap, worstCaseCostUnits, type CatalogModel, type Completion } from "../upstream";
import { firstEventThenRest, SSE_HEADERS, sseInferenceStream } from "../streaming/sse-inference";
import { formatUnitsAsUsdc, parseUsdcToUnits } from "../verify";
import { admitSignedRequest } from "./admit-signed-request";
import { inferenceRequestSchema, type InferenceRequest } from "./inference-request-schema";
import { authenticateSignedRequest, checkRequestWindow, signedRequestMessage } from "./signed-request";

export const INFERENCE_PATH = "/api/v1/inference";

export type PrepaidResult =
  | { body: Record<string, unknown>; stream?: undefined; headers: Record<string, string> }
  | { stream: ReadableStream<Uint8Array>; body?: undefined; headers: Record<string, string> };

/** Serves one signed prepaid request. Throws AppError for every refusal; nothing moves before the hold. */
export async function servePrepaidInference(ctx: AppContext, headers: Headers, rawBody: Uint8Array): Promise<PrepaidResult> {
  // SECURITY: the signature is checked over the exact bytes before any parsing (issue #4).
  const agent = authenticateSignedRequest(headers, signedRequestMessage("POST", INFERENCE_PATH, rawBody));
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
  } catch {
    throw new AppError("invalid_request", "request body is not valid UTF-8");
  }
  const body = parseWith(inferenceRequestSchema, parseJsonText(text));
  checkRequestWindow(body.timestamp);
  const settings = await admitSignedRequest(ctx.db, agent, body.nonce, config().PREPAID_RATE_LIMIT_PER_MINUTE);
  const networkId = body.network === undefined ? settings.defaultNetwork : resolveNetwork(body.network, settings.defaultNetwork);
  if (!networkId) throw new AppError("invalid_network", "network must be one of mainnet, devnet, base, base-sepolia (or a CAIP-2 id)", { detail: "network" });
  const network = NETWORKS[networkId];
  if (network.isMainnet && !settings.mainnetEnabled) {
    logEvent("mainnet.disabled", { network: network.caip2, route: "inference" });
    throw new AppError("mainnet_disabled", "mainnet is disabled by the operator");
  }
  const model = ctx.upstream.offered(body.model);
  if (!model) throw new AppError("model_not_allowed", `model ${body.model} is not offered; see GET /api/v1/models`, { detail: "model" });
  const messages = body.messages ?? [{ role: "user" as const, content: body.prompt! }];
  const cap = completionCapUnderBudget(model, messages, body);
  const holdUnits = worstCaseCostUnits(model, messages, cap);

  const hold = await placeHold(ctx.db, agent, network.caip2, holdUnits);
  if (!hold.ok) {
    throw new AppError("insufficient_credits", `this call needs up to ${formatUnitsAsUsdc(holdUnits)} USDC of free credit on ${network.label}`, {
      balance_usdc: formatUnitsAsUsdc(hold.balanceUnits),
      required_usdc: formatUnitsAsUsdc(holdUnits),
    });
  }

  const request = {
    model: model.id,
    messages,
    max_tokens: cap,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
  };
  const releaseAndRefuse = async (): Promise<AppError> => {
    const balance = await releaseHold(ctx.db, hold.holdId);
    return new AppError("upstream_error", "the model provider failed; the hold was released and nothing was charged", {
      balance_usdc: formatUnitsAsUsdc(balance ?? hold.balanceUnits + holdUnits),
    });
  };
  const operator = operatorKeypair();
  const receiptSigner =
    (completion: Completion) =>
    ({ inferenceId, pointsTotal, timestampMs }: { inferenceId: string; pointsTotal: number; timestampMs: number }) =>
      signReceipt(
        buildReceipt({
          agentPubkey: agent,
          upstream: completion.upstream,
          model: completion.model,
          // The receipt states what was charged: the cost, capped by the hold.
          costUnits: completion.costUnits < holdUnits ? completion.costUnits : holdUnits,
          prompt: body.messages ? { messages: body.messages } : { text: body.prompt! },
          responseText: completion.content,
          timestampMs,
          inferenceId,
          pointsTotal,
        }),
        operator,
      );

  const capture = (completion: Pick<Completion, "model" | "upstream" | "costUnits" | "latencyMs">, signer: ReturnType<typeof receiptSigner> | null) =>
    captureHold(ctx.db, { holdId: hold.holdId, costUnits: completion.costUnits, model: completion.model, upstream: completion.upstream, latencyMs: completion.latencyMs, signReceipt: signer });

  if (body.stream) {
    const started = performance.now();
    const abort = new AbortController();
    let events;
    try {
      events = await firstEventThenRest(ctx.upstream.stream(request, { signal: abort.signal }));
    } catch {
      throw await releaseAndRefuse();
    }
    return {
      stream: sseInferenceStream({
        inferenceId: hold.holdId,
        model: model.id,
        events,
        abort,
        finish: async (completion) => (await capture(completion, receiptSigner(completion))).receipt!,
        abortRecorded: async (produced) => {
          // The client left: it is charged what the upstream produced (capped by the hold), with no receipt.
          const cut = { ...ctx.upstream.interrupted(model.id, messages, produced), latencyMs: Math.round(performance.now() - started) };
          await capture(cut, null);
          logEvent("inference.stream_aborted", { inference_id: hold.holdId, network: network.caip2, cost: cut.costUnits.toString() });
        },
        fail: () => releaseAndRefuse(),
      }),
      headers: { ...SSE_HEADERS },
    };
  }

  let completion;
  try {
    completion = await ctx.upstream.complete(request);
  } catch {
    throw await releaseAndRefuse();
  }
  const captured = await capture(completion, receiptSigner(completion));
  return {
    body: {
      id: `chatcmpl-${hold.holdId}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: completion.model,
      choices: [{ index: 0, message: { role: "assistant", content: completion.content }, finish_reason: completion.finishReason }],
      usage: completion.usage,
    },
    headers: { "X-Service-Receipt": encodeReceiptHeader(captured.receipt!), "X-Credit-Balance-Usdc": formatUnitsAsUsdc(captured.balanceUnits) },
  };
}

/**
 * The completion cap: the model's, the request's `max_tokens`, and `max_cost_usdc` (a hard cap, issue #4): the
 * largest cap whose worst case fits under it. A budget that cannot cover even one token is a 400.
 */
function completionCapUnderBudget(model: CatalogModel, messages: InferenceRequest["messages"] & object, body: InferenceRequest): number {
  let cap = completionCap(model, body.max_tokens);
  if (body.max_cost_usdc === undefined) return cap;
  const budget = parseUsdcToUnits(String(body.max_cost_usdc));
  if (budget === null) throw new AppError("invalid_request", "max_cost_usdc: must have at most 6 decimals", { detail: "max_cost_usdc" });
  while (cap > 0 && worstCaseCostUnits(model, messages, cap) > budget) {
    // Shrink geometrically, then linearly: at most a few dozen evaluations.
    cap = cap > 64 ? Math.floor(cap * 0.75) : cap - 1;
  }
  if (cap < 1) throw new AppError("invalid_request", "max_cost_usdc is too low to cover this prompt and one token of answer", { detail: "max_cost_usdc" });
  return cap;
}
