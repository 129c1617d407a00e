// The built-in model `local/echo-1`: small, deterministic, offline. It is a test double for an LLM and says so in
// every answer; its text depends on the prompt, so receipts over it are meaningful.
import "server-only";
import { sha256Hex } from "../verify";
import { messageText, type UpstreamMessage } from "./chat-message";

export interface LocalAnswer {
  content: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** Rough token count: words and punctuation marks. */
export function countTokens(text: string): number {
  return (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).length;
}

/**
 * Token usage by our own count: each message's tokens plus 2 for its role framing, and the answer's tokens. The
 * built-in model's usage, and the estimate for a provider that reports none (a stream cut short).
 */
export function estimateUsage(messages: readonly UpstreamMessage[], answer: string): LocalAnswer["usage"] {
  // A tool call's name and arguments are prompt text too.
  const tokens = (m: UpstreamMessage) =>
    countTokens(messageText(m)) + (m.tool_calls ? countTokens(JSON.stringify(m.tool_calls)) : 0);
  const prompt = messages.reduce((n, m) => n + tokens(m) + 2, 0);
  const completion = countTokens(answer);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The built-in model's stream pieces: each word with its trailing space, concatenating back to `text`. */
export function splitIntoTokens(text: string): string[] {
  return text.match(/\s*\S+\s*/gy) ?? (text === "" ? [] : [text]);
}

const WORDS = [
  "amber",
  "basalt",
  "cedar",
  "delta",
  "ember",
  "fjord",
  "granite",
  "harbor",
  "indigo",
  "juniper",
  "kestrel",
  "lumen",
];

/** Answers deterministically: the same messages always give the same text; other messages give other text. */
export function answerLocally(messages: readonly UpstreamMessage[], maxTokens: number): LocalAnswer {
  // The built-in model reads text: a message given as parts is its text parts (the schema refuses any other part).
  const lastUserMessage = [...messages].reverse().find((m) => m.role === "user");
  const lastUser = lastUserMessage ? messageText(lastUserMessage) : "";
  const digest = sha256Hex(JSON.stringify(messages));
  const tag = [0, 1, 2].map((i) => WORDS[parseInt(digest.slice(i * 2, i * 2 + 2), 16) % WORDS.length]).join("-");
  const echoed = lastUser.length > 200 ? `${lastUser.slice(0, 200)}…` : lastUser;
  let content = `[local/echo-1, a built-in deterministic test model, not an LLM] You said: "${echoed}". Fingerprint: ${tag}.`;
  // Respect the completion cap like a real provider would (truncate by tokens).
  const pieces = content.match(/\S+\s*/g) ?? [];
  if (countTokens(content) > maxTokens) {
    let out = "";
    for (const piece of pieces) {
      if (countTokens(out + piece) > maxTokens) break;
      out += piece;
    }
    content = out.trimEnd();
  }
  return { content, usage: estimateUsage(messages, content) };
}
