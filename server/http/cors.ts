// CORS for the public verification surfaces (hosted verifier, key resources, receipt lookup, discovery, OpenAPI), so
// a page on any origin can verify receipts. Never credentials: these routes read no cookie. The dashboard's tRPC
// endpoint does not use this module and stays same-origin.
import "server-only";

/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

function corsHeaders(methods: readonly string[]): Record<string, string> {
  return {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": [...methods, "OPTIONS"].join(", "),
    "access-control-allow-headers": "content-type",
    "access-control-expose-headers": "x-request-id",
    "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
  };
}

/** Wraps a route handler so every answer it gives (success or error) carries the CORS headers for `methods`. */
export function withCors<C>(
  methods: readonly ("GET" | "POST")[],
  handler: (req: Request, ctx: C) => Promise<Response>,
): (req: Request, ctx: C) => Promise<Response> {
  const headers = corsHeaders(methods);
  return async (req, ctx) => {
    const res = await handler(req, ctx);
    for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
    return res;
  };
}

/** The OPTIONS handler answering a CORS preflight for `methods`: 204, no body. */
export function corsPreflight(methods: readonly ("GET" | "POST")[]): () => Promise<Response> {
  const headers = corsHeaders(methods);
  return async () => new Response(null, { status: 204, headers });
}
