// Prompt and response hashing (docs/receipts.md): SHA-256 hex over canonical JSON, the legacy line form, or raw text.
// Also extracts the response text from every input form the verifier accepts. Pure and browser-safe.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";

/** SHA-256 of the UTF-8 bytes of `text`, lower-case hex. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** A SHA-256 of UTF-8 text as lower-case hex: noble's here (the browser's); a server may pass its own, faster one. */
export type Sha256Hex = (text: string) => string;

export type PromptHashForm = "canonical" | "legacy" | "raw";

export interface PromptHashCandidate {
  form: PromptHashForm;
  hash: string;
}

interface ChatMessageLike {
  role: unknown;
  content: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The current prompt hash: SHA-256 of the canonical JSON of the messages array. */
export function promptHashOfMessages(messages: readonly unknown[], hash: Sha256Hex = sha256Hex): string {
  return hash(canonicalJson(messages));
}

/** The legacy prompt hash (receipts before 2026-05-23): `role:content` lines joined by "\n". Null if not representable. */
export function legacyPromptHashOfMessages(messages: readonly unknown[]): string | null {
  const lines: string[] = [];
  for (const m of messages) {
    if (!isRecord(m)) return null;
    const { role, content } = m as unknown as ChatMessageLike;
    if (typeof role !== "string" || typeof content !== "string") return null;
    lines.push(`${role}:${content}`);
  }
  return sha256Hex(lines.join("\n"));
}

/**
 * Every hash a prompt input may have been signed under. Accepted inputs: a messages array; a request body with
 * `messages` or with `prompt` (string); a plain string (hashed raw). Returns [] for anything else.
 */
export function promptHashCandidates(prompt: unknown): PromptHashCandidate[] {
  if (typeof prompt === "string") return [{ form: "raw", hash: sha256Hex(prompt) }];
  if (Array.isArray(prompt)) return messageCandidates(prompt);
  if (isRecord(prompt)) {
    const out: PromptHashCandidate[] = [];
    if (Array.isArray(prompt.messages)) out.push(...messageCandidates(prompt.messages));
    if (typeof prompt.prompt === "string") out.push({ form: "raw", hash: sha256Hex(prompt.prompt) });
    return out;
  }
  return [];
}

/**
 * The candidate whose hash is `expected`, or undefined: the same answer as searching promptHashCandidates(prompt),
 * computing each candidate only until one matches (a current receipt matches the first, canonical, one).
 */
export function matchPromptHash(prompt: unknown, expected: unknown, hash: Sha256Hex = sha256Hex): PromptHashCandidate | undefined {
  const messages = Array.isArray(prompt) ? prompt : isRecord(prompt) && Array.isArray(prompt.messages) ? prompt.messages : null;
  if (messages !== null) {
    let canonical: string | null;
    try {
      canonical = promptHashOfMessages(messages, hash);
    } catch {
      canonical = null;
    }
    if (canonical !== null && canonical === expected) return { form: "canonical", hash: canonical };
  }
  return promptHashCandidates(prompt).find((c) => c.hash === expected);
}

function messageCandidates(messages: readonly unknown[]): PromptHashCandidate[] {
  const out: PromptHashCandidate[] = [];
  try {
    out.push({ form: "canonical", hash: promptHashOfMessages(messages) });
  } catch {
    // Not canonicalizable (cannot come from parsed JSON); no canonical candidate.
  }
  const legacy = legacyPromptHashOfMessages(messages);
  if (legacy !== null) out.push({ form: "legacy", hash: legacy });
  return out;
}

/**
 * The response text a receipt's `response_hash` covers. Accepted inputs: an OpenAI chat-completion body
 * (`choices[0].message.content`); an object with `result` (string); a plain string; an array of
 * `chat.completion.chunk` objects (concatenated `choices[0].delta.content`). Null when no text can be found.
 */
export function responseText(response: unknown): string | null {
  if (typeof response === "string") return response;
  if (Array.isArray(response)) return concatenateChunks(response);
  if (!isRecord(response)) return null;
  const choices = response.choices;
  if (Array.isArray(choices)) {
    const first: unknown = choices[0];
    if (isRecord(first) && isRecord(first.message) && typeof first.message.content === "string") {
      return first.message.content;
    }
    return null;
  }
  if (typeof response.result === "string") return response.result;
  return null;
}

function concatenateChunks(chunks: readonly unknown[]): string | null {
  let text = "";
  for (const chunk of chunks) {
    if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return null;
    const first: unknown = chunk.choices[0];
    if (first === undefined) continue; // usage-only chunk
    if (!isRecord(first) || !isRecord(first.delta)) return null;
    const content = first.delta.content;
    if (content === undefined || content === null) continue;
    if (typeof content !== "string") return null;
    text += content;
  }
  return text;
}

/** The response hash: SHA-256 hex of the response text, or null when the input holds no text. */
export function responseHash(response: unknown, hash: Sha256Hex = sha256Hex): string | null {
  const text = responseText(response);
  return text === null ? null : hash(text);
}
