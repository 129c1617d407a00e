// The text of an answer, as a tool result shows it: a chat completion's first choice, or a response's output messages.

/** The content of a chat completion's first choice ("" when it has none, as when the model only called tools). */
export function chatAnswerText(answer: Record<string, unknown> | null): string {
  const choices = answer?.choices as { message?: { content?: unknown } }[] | undefined;
  const text = choices?.[0]?.message?.content;
  return typeof text === "string" ? text : "";
}

/** The `output_text` parts of a Responses object's message items, joined. */
export function responsesAnswerText(answer: Record<string, unknown> | null): string {
  const output = (answer?.output ?? []) as { type?: string; content?: { type?: string; text?: unknown }[] }[];
  return output
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content ?? [])
    .map((part) => (part.type === "output_text" && typeof part.text === "string" ? part.text : ""))
    .join("");
}
