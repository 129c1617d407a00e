// The messages a Responses API request (`POST /api/v1/responses`) is served as: the prompt its receipt's prompt hash
// covers. The service maps a request with this function and a verifier maps the request body it holds with the same
// one, so both hash the same messages. Pure and browser-safe.

/**
 * A message the Responses input maps to, in chat's shape: a message item's role and content (its parts chat's `text`
 * parts); the function calls of an earlier answer as one assistant message with `tool_calls` (`content: null`); a
 * call's output as a `tool` message.
 */
export type ResponsesPromptMessage =
  | { role: string; content: string | { type: "text"; text: string }[] }
  | { role: "assistant"; content: null; tool_calls: ResponsesPromptToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

interface ResponsesPromptToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Text part types of the Responses input: the caller's (`input_text`) and an earlier answer passed back (`output_text`). */
const TEXT_PART_TYPES = new Set(["input_text", "output_text"]);

/**
 * The messages of a Responses request: `instructions` (a non-empty string) first as a system message, then `input`: a
 * string is one user message; each message item keeps its role, its string content as is, and its text parts as chat
 * `text` parts in order; consecutive `function_call` items become one assistant message whose `tool_calls` hold each
 * call (`{ id: call_id, type: "function", function: { name, arguments } }`) in order; a `function_call_output` item
 * becomes `{ role: "tool", tool_call_id: call_id, content: output }`. Null when the input holds anything else (a
 * non-text part, another item type, an output that is not a string).
 */
export function responsesPromptMessages(body: {
  instructions?: unknown;
  input?: unknown;
}): ResponsesPromptMessage[] | null {
  const messages: ResponsesPromptMessage[] = [];
  if (typeof body.instructions === "string" && body.instructions !== "")
    messages.push({ role: "system", content: body.instructions });
  if (typeof body.input === "string") return [...messages, { role: "user", content: body.input }];
  if (!Array.isArray(body.input)) return null;
  for (const item of body.input) {
    if (isRecord(item) && item.type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string")
        return null;
      const call: ResponsesPromptToolCall = {
        id: item.call_id,
        type: "function",
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages.at(-1);
      if (last && "tool_calls" in last) last.tool_calls.push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
      continue;
    }
    if (isRecord(item) && item.type === "function_call_output") {
      if (typeof item.call_id !== "string" || typeof item.output !== "string") return null;
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
      continue;
    }
    if (!isRecord(item) || typeof item.role !== "string" || (item.type !== undefined && item.type !== "message"))
      return null;
    if (typeof item.content === "string") {
      messages.push({ role: item.role, content: item.content });
      continue;
    }
    if (!Array.isArray(item.content)) return null;
    const parts: { type: "text"; text: string }[] = [];
    for (const part of item.content) {
      if (
        !isRecord(part) ||
        typeof part.type !== "string" ||
        !TEXT_PART_TYPES.has(part.type) ||
        typeof part.text !== "string"
      )
        return null;
      parts.push({ type: "text", text: part.text });
    }
    messages.push({ role: item.role, content: parts });
  }
  return messages;
}
