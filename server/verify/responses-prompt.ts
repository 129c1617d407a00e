// The messages a Responses API request (`POST /api/v1/responses`) is served as: the prompt its receipt's prompt hash
// covers. The service maps a request with this function and a verifier maps the request body it holds with the same
// one, so both hash the same messages. Pure and browser-safe.

/** A message the Responses input maps to: chat's shape, its parts chat's `text` parts. */
export interface ResponsesPromptMessage {
  role: string;
  content: string | { type: "text"; text: string }[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Text part types of the Responses input: the caller's (`input_text`) and an earlier answer passed back (`output_text`). */
const TEXT_PART_TYPES = new Set(["input_text", "output_text"]);

/**
 * The messages of a Responses request: `instructions` (a non-empty string) first as a system message, then `input`: a
 * string is one user message; each message item keeps its role, its string content as is, and its text parts as chat
 * `text` parts in order. Null when the input holds anything else (a non-text part, a non-message item).
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
