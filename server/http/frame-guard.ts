// No page of the service may be framed by another site (the explorer, the grant page and the operator dashboard
// take clicks that sign or spend): every answer the front server writes says so, in both headers browsers read.
// No "server-only" and no config here: bin/start/serve-next.ts loads this outside Next.
import type http from "node:http";

/** The CSP directive that forbids every framing ancestor (browsers that read CSP level 2 and later). */
const FRAME_ANCESTORS_NONE = "frame-ancestors 'none'";

/** The same rule for browsers that predate CSP's frame-ancestors. */
const X_FRAME_OPTIONS = "DENY";

/**
 * `csp` (a Content-Security-Policy value, or none) with `frame-ancestors 'none'`: added to a policy that has no
 * frame-ancestors directive, put in place of one that allows some ancestor, and alone when there was no policy.
 */
export function withFrameAncestorsNone(csp: string | undefined): string {
  const directives = (csp ?? "")
    .split(";")
    .map((d) => d.trim())
    .filter((d) => d !== "" && !/^frame-ancestors(\s|$)/i.test(d));
  return [...directives, FRAME_ANCESTORS_NONE].join("; ");
}

/** A header's value as Node keeps it (string, number or list) as the list of strings it sends. */
function headerValues(value: http.OutgoingHttpHeader | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [String(value)];
}

/**
 * Makes `res` send `X-Frame-Options: DENY` and a Content-Security-Policy with `frame-ancestors 'none'`, merged into
 * the one its handler set (each policy, when it set several), whatever path the handler takes to send its head:
 * `writeHead` with headers, `setHeader` then `write` or `end` (Node sends an implicit head through `writeHead`).
 */
export function guardFraming(res: http.ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (statusCode: number, statusMessage?: string) => http.ServerResponse;
  // SECURITY: Node sends every head through writeHead, the implicit one included: no answer leaves without both headers.
  res.writeHead = ((statusCode: number, reasonOrHeaders?: unknown, maybeHeaders?: unknown) => {
    // A second head is Node's error to raise, as it would without this guard.
    if (res.headersSent) return writeHead(statusCode);
    const statusMessage = typeof reasonOrHeaders === "string" ? reasonOrHeaders : undefined;
    const headers = (typeof reasonOrHeaders === "string" ? maybeHeaders : reasonOrHeaders) as
      http.OutgoingHttpHeaders | http.OutgoingHttpHeader[] | undefined;
    applyHeaders(res, headers);
    const policies = headerValues(res.getHeader("content-security-policy"));
    const guarded = policies.length === 0 ? [withFrameAncestorsNone(undefined)] : policies.map(withFrameAncestorsNone);
    res.setHeader("content-security-policy", guarded.length === 1 ? guarded[0]! : guarded);
    res.setHeader("x-frame-options", X_FRAME_OPTIONS);
    return statusMessage === undefined ? writeHead(statusCode) : writeHead(statusCode, statusMessage);
  }) as typeof res.writeHead;
}

/**
 * Sets the headers a `writeHead` call passed, as Node does when headers were also set before: each replaces an earlier
 * value of its name. A flat [name, value, …] list keeps every value of a name it repeats (Set-Cookie).
 */
function applyHeaders(
  res: http.ServerResponse,
  headers: http.OutgoingHttpHeaders | http.OutgoingHttpHeader[] | undefined,
): void {
  if (!headers) return;
  if (!Array.isArray(headers)) {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
    return;
  }
  const byName = new Map<string, { name: string; values: string[] }>();
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = String(headers[i]);
    const entry = byName.get(name.toLowerCase()) ?? { name, values: [] };
    entry.values.push(...headerValues(headers[i + 1]));
    byName.set(name.toLowerCase(), entry);
  }
  for (const { name, values } of byName.values()) res.setHeader(name, values.length === 1 ? values[0]! : values);
}
