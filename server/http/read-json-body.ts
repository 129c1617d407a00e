// Reads a request body as JSON with a byte cap, so no route ever buffers an unbounded body or leaks a parse error.
import "server-only";
import { AppError } from "../errors";

/** Default cap for JSON bodies, bytes. Chat bodies get their own cap in their route's service. */
export const DEFAULT_MAX_BODY_BYTES = 1_000_000;

/** Reads at most `maxBytes` of the body (413 past that) and returns the raw text. */
export async function readBodyText(req: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<string> {
  return decodeBodyText(await readBodyBytes(req, maxBytes));
}

/** A body's bytes as text; bytes that are not UTF-8 are a 400 `invalid_request`. */
export function decodeBodyText(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("invalid_request", "request body is not valid UTF-8", { detail: "body" });
  }
}

/**
 * How much of a body refused as too large is still read, and dropped, before the 413 is answered. A reverse proxy (or
 * a client) still sending it would otherwise meet a closed connection and answer 502 instead of passing the 413 on.
 * Past it the body is cut off: the nginx site in deploy/ forwards at most 2 MiB.
 */
export const DRAIN_REFUSED_BODY_BYTES = 4 * 1024 * 1024;

/** Reads at most `maxBytes` of the body (413 past that) and returns the exact bytes (signatures cover them). */
export async function readBodyBytes(req: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes)
    return refuseTooLarge(req.body?.getReader() ?? null, 0, maxBytes);
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) return refuseTooLarge(reader, total, maxBytes);
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return bytes;
}

/**
 * Reads and drops the rest of a body past its cap (`read` bytes of it so far), up to DRAIN_REFUSED_BODY_BYTES, then
 * throws the 413. A body longer still is cancelled where the reading stopped.
 */
async function refuseTooLarge(
  reader: ReadableStreamDefaultReader<Uint8Array> | null,
  read: number,
  maxBytes: number,
): Promise<never> {
  let total = read;
  while (reader && total <= DRAIN_REFUSED_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
  }
  if (reader && total > DRAIN_REFUSED_BODY_BYTES) await reader.cancel();
  throw new AppError("payload_too_large", `request body exceeds ${maxBytes} bytes`);
}

/** Parses body text as JSON; a syntax error is a 400 `invalid_request` that never echoes the parser's message. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "")
    throw new AppError("invalid_request", "request body is empty; expected JSON", { detail: "body" });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("invalid_request", "request body is not valid JSON", { detail: "body" });
  }
}

/** Reads and parses a JSON body under the byte cap. */
export async function readJsonBody(req: Request, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<unknown> {
  return parseJsonText(await readBodyText(req, maxBytes));
}
