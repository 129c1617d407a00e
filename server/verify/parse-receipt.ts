// Reads a receipt from what people have: the receipt JSON, or the base64 `X-Service-Receipt` header value.
// Pure and browser-safe (atob + TextDecoder).

export type ParseReceiptResult =
  | { ok: true; receipt: Record<string, unknown> }
  | { ok: false; reason: "empty" | "not_json_or_base64" | "not_an_object" };

/** Parses receipt JSON or base64-encoded receipt JSON. */
export function parseReceiptText(text: string): ParseReceiptResult {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, reason: "empty" };
  const parsed = tryJson(trimmed) ?? tryJson(decodeBase64Utf8(trimmed));
  if (parsed === undefined) return { ok: false, reason: "not_json_or_base64" };
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { ok: false, reason: "not_an_object" };
  return { ok: true, receipt: parsed as Record<string, unknown> };
}

/** Base64 (standard or URL-safe, padding optional) → UTF-8 text; null if not base64. */
export function decodeBase64Utf8(text: string): string | null {
  const normalized = text.replace(/-/g, "+").replace(/_/g, "/").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normalized)) return null;
  try {
    const binary = atob(normalized.padEnd(Math.ceil(normalized.length / 4) * 4, "="));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function tryJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
