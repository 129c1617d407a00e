// Shared CLI plumbing: usage errors exit 2 with a one-line reason on stderr; results go to stdout.
import { readFileSync } from "node:fs";

export class UsageError extends Error {
  override name = "UsageError";
}

/** Reads a file as UTF-8, as a usage error when it cannot be read. */
export function readTextFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read ${what} file ${file}`);
  }
}

/** JSON if the text parses as JSON, else the raw text (hashed byte for byte). */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The one-line usage error for a service's refusal: its status, stable code and message. An error body is OpenAI's
 * shape, `{ error: { message, type, param, code, ... }, request_id }`: the code is `error.code`, never `error` itself.
 */
export function serviceRefusal(status: number, body: unknown): UsageError {
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  const fields = typeof error === "object" && error !== null ? (error as { code?: unknown; message?: unknown }) : {};
  const code = typeof fields.code === "string" ? fields.code : "";
  const message = typeof fields.message === "string" ? fields.message : "";
  return new UsageError(`the service answered ${status}: ${code} ${message}`.trim());
}

/** Prints the reason and exits 2 (usage or fetch error). */
export function failUsage(message: string): never {
  process.stderr.write(`signet: ${message.split("\n")[0]}\n`);
  process.exit(2);
}
