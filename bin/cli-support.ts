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

/** Prints the reason and exits 2 (usage or fetch error). */
export function failUsage(message: string): never {
  process.stderr.write(`signet: ${message.split("\n")[0]}\n`);
  process.exit(2);
}
