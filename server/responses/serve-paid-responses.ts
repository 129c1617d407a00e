// The paid responses call: OpenAI's Responses request mapped onto the chat call it asks for (its messages, its output
// cap, the same model gate), paid and served by the chat route's money path, with the payment bound to the Responses
// request under the responses route's own digest; the answer is mapped back to the Responses shape.
import "server-only";
import type { AppContext } from "../context/app-context";
import { servePaidChat } from "../chat/serve-paid-chat";
import { responsesRequestDigest } from "../x402/request-digest";
import type { ServedCall } from "../pipeline/call-types";
import { asResponsesAnswer } from "./responses-answer";
import { chatRequestOf } from "./chat-request-of";
import type { ResponsesRequest } from "../schemas/responses-request-schema";

export interface PaidResponsesInput {
  body: ResponsesRequest;
  headers: Headers;
  /** The public URL of the resource, for the challenge. */
  resourceUrl: string;
}

/** Serves one Responses request on the paid route. Throws AppError for every refusal. */
export async function servePaidResponses(ctx: AppContext, input: PaidResponsesInput): Promise<ServedCall> {
  const { body } = input;
  const served = await servePaidChat(ctx, {
    body: chatRequestOf(body),
    headers: input.headers,
    resourceUrl: input.resourceUrl,
    binding: { resource: "responses", requestDigest: (network) => responsesRequestDigest(body, network) },
  });
  return asResponsesAnswer(body, served);
}
