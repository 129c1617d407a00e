// The prepaid responses call: a Responses request signed like a prepaid inference request (X-Agent-Pubkey and
// X-Agent-Signature over `POST <origin>/api/v1/responses` and the exact body bytes; `nonce` and `timestamp` in the
// body, `max_cost_usdc` optional), admitted and served from credit by the prepaid route's own path, and answered in
// the Responses shape. It is planned as the chat body it maps to (server/chat/serve-prepaid-chat.ts), so its hold, job
// and receipt are the prepaid chat call's: the receipt covers the messages the request maps to, as on the paid route.
import "server-only";
import { signedFieldsSchema } from "../schemas/signed-fields-schema";
import type { AppContext } from "../context/app-context";
import { AppError } from "../errors";
import { parseWith } from "../http/parse-with";
import type { ServedCall } from "../pipeline/call-types";
import { servePrepaidInference } from "../prepaid/serve-prepaid-inference";
import { prepaidChat } from "../chat/serve-prepaid-chat";
import { paidRoute } from "../x402/paid-routes";
import { asResponsesAnswer } from "./responses-answer";
import { responsesRequestSchema, type ResponsesRequest } from "../schemas/responses-request-schema";
import { chatRequestOf } from "./chat-request-of";

/** Serves one signed Responses request from credit. Throws AppError for every refusal; nothing moves before the hold. */
export async function servePrepaidResponses(
  ctx: AppContext,
  headers: Headers,
  rawBody: Uint8Array,
): Promise<ServedCall> {
  let request: ResponsesRequest | null = null;
  const served = await servePrepaidInference(ctx, headers, rawBody, {
    path: paidRoute("responses").path,
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
      return prepaidChat(chatRequestOf(body), signed);
    },
  });
  // The parse ran before anything was served: a served call always has its request.
  return asResponsesAnswer(request!, served);
}
