// The prepaid embeddings call: an embeddings request signed like a prepaid inference request (X-Agent-Pubkey and
// X-Agent-Signature over `POST <origin>/api/v1/embeddings` and the exact body bytes; `nonce` and `timestamp` in the
// body, `max_cost_usdc` optional), admitted and served from credit by the prepaid route's own path: the hold is the
// inputs' worst-case cost, and the answer and its receipt are the paid route's.
import "server-only";
import { signedFieldsSchema } from "../schemas/signed-fields-schema";
import type { AppContext } from "../context/app-context";
import { AppError } from "../errors";
import { parseWith } from "../http/parse-with";
import type { ServedCall } from "../pipeline/call-types";
import { budgetUnitsOf, servePrepaidInference, type PrepaidCall } from "../prepaid/serve-prepaid-inference";
import { formatUnitsAsUsdc } from "../verify";
import { paidRoute } from "../x402/paid-routes";
import { parseEmbeddingsRequest, requireOfferedEmbeddingModel, worstCaseWithin } from "./embeddings-call";
import { embeddingsJob } from "./embeddings-job";

/** Serves one signed embeddings request from credit. Throws AppError for every refusal; nothing moves before the hold. */
export function servePrepaidEmbeddings(ctx: AppContext, headers: Headers, rawBody: Uint8Array): Promise<ServedCall> {
  return servePrepaidInference(ctx, headers, rawBody, {
    path: paidRoute("embeddings").path,
    parse: prepaidEmbeddingsCall,
  });
}

function prepaidEmbeddingsCall(json: unknown): PrepaidCall {
  const body = parseEmbeddingsRequest(json);
  const signed = parseWith(signedFieldsSchema, json);
  const budget = budgetUnitsOf(signed.max_cost_usdc);
  return {
    nonce: signed.nonce,
    timestamp: signed.timestamp,
    network: body.network,
    plan(ctx, network, settings) {
      const model = requireOfferedEmbeddingModel(ctx.upstream, body.model, network, settings);
      // The hold is the worst case, which a budget (`max_cost_usdc`, a hard cap) must cover.
      const holdUnits = worstCaseWithin(
        model,
        body,
        budget ?? BigInt(Number.MAX_SAFE_INTEGER),
        (worst) =>
          new AppError(
            "invalid_request",
            `max_cost_usdc is too low: these inputs could cost up to ${formatUnitsAsUsdc(worst)} USDC`,
            { detail: "max_cost_usdc" },
          ),
      );
      return { holdUnits, job: embeddingsJob(body, model.id) };
    },
  };
}
