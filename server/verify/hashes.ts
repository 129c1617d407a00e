// Prompt and response hashing (docs/receipts.md): SHA-256 hex over canonical JSON, the legacy line form, or raw text;
// an embeddings call's over its inputs and its vectors (embedding-hashes.ts). Also extracts the response text from
// every input form the verifier accepts. Pure and browser-safe.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";
import {
  embeddingInputsOf,
  embeddingsPromptHash,
  embeddingsResponseHash,
  embeddingVectorsOf,
} from "./embedding-hashes";
import { responsesPromptMessages } from "./responses-prompt";

/** SHA-256 of the UTF-8 bytes of `text`, lower-case hex. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** A SHA-256 of UTF-8 text as lower-case hex: noble's here (the browser's); a server may pass its own, faster one. */
export type Sha256Hex = (text: string) => string;

/** `embeddings`: an embeddings call's inputs as a list (embeddingsPromptHash). */
export type PromptHashForm = "canonical" | "legacy" | "raw" | "embeddings";

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
 * `messages` or with `prompt` (string); a Responses request body with `input` (hashed as the messages it maps to); an
 * embeddings request body, or its `input` (a list of texts or token ids: hashed as an embeddings input); a plain
 * string (hashed raw, and as a one-text embeddings input). Returns [] for anything else.
 */
export function promptHashCandidates(prompt: unknown): PromptHashCandidate[] {
  if (typeof prompt === "string") return [{ form: "raw", hash: sha256Hex(prompt) }, ...embeddingsCandidates(prompt)];
  if (Array.isArray(prompt))
    return embeddingInputsOf(prompt) !== null ? embeddingsCandidates(prompt) : messageCandidates(prompt);
  if (isRecord(prompt)) {
    const out: PromptHashCandidate[] = [];
    if (Array.isArray(prompt.messages)) out.push(...messageCandidates(prompt.messages));
    const mapped = promptMessagesOf(prompt);
    if (mapped && !Array.isArray(prompt.messages)) out.push(...messageCandidates(mapped));
    if (typeof prompt.prompt === "string") out.push({ form: "raw", hash: sha256Hex(prompt.prompt) });
    // A body with `input` may be a Responses request or an embeddings one (`{"input":"hi"}` reads as either).
    if ("input" in prompt) out.push(...embeddingsCandidates(prompt.input));
    return out;
  }
  return [];
}

/** The embeddings candidate of an `input`, when it is one (a list of texts never holds a chat message). */
function embeddingsCandidates(input: unknown): PromptHashCandidate[] {
  const hash = embeddingsPromptHash(input);
  return hash === null ? [] : [{ form: "embeddings", hash }];
}

/**
 * The candidate whose hash is `expected`, or undefined: the same answer as searching promptHashCandidates(prompt),
 * computing each candidate only until one matches (a current receipt matches the first, canonical, one).
 */
export function matchPromptHash(
  prompt: unknown,
  expected: unknown,
  hash: Sha256Hex = sha256Hex,
): PromptHashCandidate | undefined {
  const messages = Array.isArray(prompt)
    ? embeddingInputsOf(prompt) === null
      ? prompt
      : null
    : isRecord(prompt)
      ? promptMessagesOf(prompt)
      : null;
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

/** A request body's messages: its `messages`, or the messages a Responses body's `input` maps to; null for neither. */
function promptMessagesOf(body: Record<string, unknown>): readonly unknown[] | null {
  if (Array.isArray(body.messages)) return body.messages;
  return "input" in body ? responsesPromptMessages(body) : null;
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

/** The forms `responseText` reads, for a message that names what was expected. */
export const RESPONSE_FORMS =
  "a chat completion, a Responses object, a chat stream's chunks, a Responses stream's events, an embeddings answer or its vectors, {result}, or text";

/**
 * The response text a receipt's `response_hash` covers. Accepted inputs: an OpenAI chat-completion body
 * (`choices[0].message.content`); an OpenAI Responses object (`object: "response"`: the `text` of every `output_text`
 * part of its message items, concatenated in order); an object with `result` (string); a plain string; an array of
 * `chat.completion.chunk` objects (concatenated `choices[0].delta.content`); an array of Responses stream events (each an
 * object with a `type`: the `delta` of every `response.output_text.delta` event, concatenated in order). Null when no
 * text can be found.
 */
export function responseText(response: unknown): string | null {
  if (typeof response === "string") return response;
  if (Array.isArray(response))
    return isRecord(response[0]) && typeof response[0].type === "string"
      ? concatenateEvents(response)
      : concatenateChunks(response);
  if (!isRecord(response)) return null;
  const choices = response.choices;
  if (Array.isArray(choices)) {
    const first: unknown = choices[0];
    if (isRecord(first) && isRecord(first.message) && typeof first.message.content === "string") {
      return first.message.content;
    }
    return null;
  }
  if (response.object === "response") return responsesOutputText(response.output);
  if (typeof response.result === "string") return response.result;
  return null;
}

/** A Responses object's text: its message items' `output_text` parts, concatenated; null for a malformed output. */
function responsesOutputText(output: unknown): string | null {
  if (!Array.isArray(output)) return null;
  let text = "";
  for (const item of output) {
    if (!isRecord(item)) return null;
    if (item.type !== "message") continue;
    if (!Array.isArray(item.content)) return null;
    for (const part of item.content) {
      if (!isRecord(part)) return null;
      if (part.type !== "output_text") continue;
      if (typeof part.text !== "string") return null;
      text += part.text;
    }
  }
  return text;
}

/** A Responses stream's text: its `response.output_text.delta` events' deltas; null when an event is malformed. */
function concatenateEvents(events: readonly unknown[]): string | null {
  let text = "";
  for (const event of events) {
    if (!isRecord(event) || typeof event.type !== "string") return null;
    if (event.type !== "response.output_text.delta") continue;
    if (typeof event.delta !== "string") return null;
    text += event.delta;
  }
  return text;
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

/**
 * The response hash: SHA-256 hex of the response text; for an embeddings answer (a response body, its vectors, or one
 * vector: embeddingVectorsOf), the hash of its vectors (embeddingsResponseHash). Null when the input holds neither.
 */
export function responseHash(response: unknown, hash: Sha256Hex = sha256Hex): string | null {
  const text = responseText(response);
  if (text !== null) return hash(text);
  const vectors = embeddingVectorsOf(response);
  return vectors === null ? null : embeddingsResponseHash(vectors);
}
