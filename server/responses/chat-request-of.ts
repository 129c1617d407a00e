// A Responses request as the chat call it asks for: both routes of the Responses API serve it through the chat
// call's shape, so the mapping is one module that neither route's money path owns.
import "server-only";
import type { ChatMessage, ChatRequest } from "../schemas/chat-request-schema";
import { AppError } from "../errors";
import { responsesPromptMessages } from "../verify";
import type { ResponsesRequest } from "../schemas/responses-request-schema";

/**
 * The chat call a Responses request asks for: the messages its instructions and input map to (what the receipt's
 * prompt hash covers), its output cap as `max_tokens`, its sampling parameters, and its function tools.
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
    ...toolsOf(body),
  };
}

/** The Responses function tools and tool choice as chat's. */
function toolsOf(body: ResponsesRequest): Pick<ChatRequest, "tools" | "tool_choice" | "parallel_tool_calls"> {
  const out: Pick<ChatRequest, "tools" | "tool_choice" | "parallel_tool_calls"> = {};
  if (body.tools && body.tools.length > 0)
    out.tools = body.tools.map((tool) => ({
      type: "function" as const,
      function: {
        name: tool.name,
        ...(tool.description != null ? { description: tool.description } : {}),
        ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
        ...(tool.strict != null ? { strict: tool.strict } : {}),
      },
    }));
  const choice = body.tool_choice;
  if (choice != null)
    out.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
  if (body.parallel_tool_calls != null) out.parallel_tool_calls = body.parallel_tool_calls;
  return out;
}

/** The Responses `text.format` as chat's `response_format`; nothing for plain text. */
function responseFormatOf(body: ResponsesRequest): Pick<ChatRequest, "response_format"> {
  const format = body.text?.format;
  if (!format || format.type === "text") return {};
  if (format.type === "json_object") return { response_format: { type: "json_object" } };
  const { type: _type, ...jsonSchema } = format;
  return { response_format: { type: "json_schema", json_schema: jsonSchema } };
}
