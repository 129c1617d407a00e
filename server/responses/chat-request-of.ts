// A Responses request as the chat call it asks for: both routes of the Responses API serve it through the chat
// call's shape, so the mapping is one module that neither route's money path owns.
import "server-only";
import type { ChatMessage, ChatRequest } from "../schemas/chat-request-schema";
import { AppError } from "../errors";
import { responsesPromptMessages } from "../verify";
import type { ResponsesRequest } from "../schemas/responses-request-schema";

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
