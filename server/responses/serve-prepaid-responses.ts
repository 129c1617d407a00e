// The prepaid responses call: a Responses request signed like a prepaid inference request (X-Agent-Pubkey and
// X-Agent-Signature over `POST <origin>/api/v1/responses` and the exact body bytes; `nonce` and `timestamp` in the
// body, `max_cost_usdc` optional), admitted and served from credit by the prepaid route's own path, and answered in
// the Responses shape. Its receipt covers the messages the request maps to, as on the paid route.
import "server-only";
import { signedFieldsSchema, type SignedFields } from "../schemas/signed-fields-schema";
import type { AppContext } from "../context/app-context";
import { AppError } from "../errors";
import { parseWith } from "../http/parse-with";
import type { ServedCall } from "../pipeline/call-types";
import type { InferenceRequest } from "../schemas/inference-request-schema";
import { chatPrepaidCall, servePrepaidInference } from "../prepaid/serve-prepaid-inference";
import { asResponsesAnswer } from "./responses-answer";
import { responsesRequestSchema, type ResponsesRequest } from "../schemas/responses-request-schema";
import { chatRequestOf } from "./chat-request-of";

/** The path a prepaid responses request's signature names. */
const RESPONSES_PATH = "/api/v1/responses";

/** Serves one signed Responses request from credit. Throws AppError for every refusal; nothing moves before the hold. */
export async function servePrepaidResponses(
  ctx: AppContext,
  headers: Headers,
  rawBody: Uint8Array,
): Promise<ServedCall> {
  let request: ResponsesRequest | null = null;
  const served = await servePrepaidInference(ctx, headers, rawBody, {
    path: RESPONSES_PATH,
    parse: (json) => {
      const body = parseWith(responsesRequestSchema, json);
      const signed = parseWith(signedFieldsSchema, json);
      // The prepaid call passes the provider no response format, so a JSON one would be silently dropped.
      if (body.text?.format && body.text.format.type !== "text") {
        throw new AppError(
          "invalid_request",
          "text.format: must be text on a signed (prepaid) request: the prepaid route passes no response format",
          { detail: "text.format" },
        );
      }
      request = body;
      return chatPrepaidCall(prepaidRequestOf(body, signed));
    },
  });
  // The parse ran before anything was served: a served call always has its request.
  return asResponsesAnswer(request!, served);
}

/** The prepaid call a signed Responses request asks for: the same messages, cap and parameters as on the paid route. */
function prepaidRequestOf(body: ResponsesRequest, signed: SignedFields): InferenceRequest {
  const chat = chatRequestOf(body);
  return {
    model: chat.model,
    messages: chat.messages,
    nonce: signed.nonce,
    timestamp: signed.timestamp,
    max_cost_usdc: signed.max_cost_usdc,
    max_tokens: chat.max_tokens ?? undefined,
    network: chat.network,
    temperature: chat.temperature ?? undefined,
    top_p: chat.top_p ?? undefined,
    stream: chat.stream ?? undefined,
    tools: chat.tools,
    tool_choice: chat.tool_choice,
    parallel_tool_calls: chat.parallel_tool_calls,
  };
}
