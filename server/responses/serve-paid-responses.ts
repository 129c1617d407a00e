// The paid responses call: OpenAI's Responses request mapped onto the chat call it asks for (its messages, its output
// cap, the same model gate), paid and served by the chat route's money path, with the payment bound to the Responses
// request under the responses route's own digest; the answer is mapped back to the Responses shape.
import "server-only";
import type { AppContext } from "../app-context";
import { AppError } from "../errors";
import type { ChatMessage, ChatRequest } from "../chat/chat-request-schema";
import { servePaidChat } from "../chat/serve-paid-chat";
import { responsesRequestDigest } from "../payments/request-digest";
import type { ServedCall } from "../pipeline/call-types";
import { responsesPromptMessages } from "../verify";
import { asResponsesAnswer } from "./responses-answer";
import type { ResponsesRequest } from "./responses-request-schema";

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

/**
 * The chat call a Responses request asks for: the messages its instructions and input map to (what the receipt's
 * prompt hash covers), its output cap as `max_tokens`, and its sampling parameters.
 */
export function chatRequestOf(body: ResponsesRequest): ChatRequest {
  const messages = responsesPromptMessages(body);
  // The schema admits only input that maps; a body that reaches here unmapped is a caller's bug, not a request's.
  if (!messages) throw new AppError("internal_error", "a validated Responses input did not map to messages");
  return {
    model: body.model,
    messages: messages as ChatMessage[],
    network: body.network,
    max_tokens: body.max_output_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    top_p: body.top_p ?? undefined,
    stream: body.stream ?? undefined,
    ...responseFormatOf(body),
  };
}

/** The Responses `text.format` as chat's `response_format`; nothing for plain text. */
function responseFormatOf(body: ResponsesRequest): Pick<ChatRequest, "response_format"> {
  const format = body.text?.format;
  if (!format || format.type === "text") return {};
  if (format.type === "json_object") return { response_format: { type: "json_object" } };
  const { type: _type, ...jsonSchema } = format;
  return { response_format: { type: "json_schema", json_schema: jsonSchema } };
}
