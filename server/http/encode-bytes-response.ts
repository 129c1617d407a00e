// Byte answers that caches keep (the receipt log's tiles and entry bundles): gzip-encoded when the request's
// Accept-Encoding takes gzip, identity otherwise, and `Vary: Accept-Encoding` on both, so a cache keeps one copy per
// encoding and no other split.
import "server-only";
import { promisify } from "node:util";
import { gzip } from "node:zlib";

const gzipAsync = promisify(gzip);

/** Whether an Accept-Encoding header takes gzip (`gzip`, `x-gzip` or `*`, with a q-value above 0; an invalid q is 0). */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  let gzipWeight: number | null = null;
  let anyWeight: number | null = null;
  for (const part of header.toLowerCase().split(",")) {
    const [coding, ...params] = part.split(";").map((s) => s.trim());
    const q = params.find((p) => /^q\s*=/.test(p));
    const weight = q === undefined ? 1 : Number(q.replace(/^q\s*=\s*/, ""));
    const valid = Number.isFinite(weight) && weight >= 0 && weight <= 1 ? weight : 0;
    if (coding === "gzip" || coding === "x-gzip") gzipWeight = Math.max(gzipWeight ?? 0, valid);
    else if (coding === "*") anyWeight = valid;
  }
  return (gzipWeight ?? anyWeight ?? 0) > 0;
}

/**
 * Whether the handler's Response reaches the client as it is. Next's route pipeline (a NextRequest, with `nextUrl`)
 * drops a route's Content-Encoding, so a gzip body there would arrive undecodable; the front server's direct routes and
 * plain HTTP servers hand the handler a plain Request and write its Response verbatim.
 */
function answeredVerbatim(req: Request): boolean {
  return !("nextUrl" in req);
}

/** A 200 of `bytes` with `headers`, gzip-encoded when `req` takes gzip and the answer reaches the client verbatim. */
export async function bytesResponse(
  req: Request,
  bytes: Uint8Array,
  headers: Record<string, string>,
): Promise<Response> {
  const vary = { ...headers, vary: "Accept-Encoding" };
  if (!answeredVerbatim(req) || !acceptsGzip(req.headers.get("accept-encoding")))
    return new Response(Buffer.from(bytes), { headers: vary });
  return new Response(await gzipAsync(bytes), { headers: { ...vary, "content-encoding": "gzip" } });
}
