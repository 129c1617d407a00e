// Where each x402-paid route is served, and whether the front server serves it straight from its built handler: the
// part of the paid-route registry (server/x402/paid-routes.ts) that the front server reads, so it imports nothing
// server-only. Adding a paid route is a row here and its full row there.

/** Each paid route's path and method, and whether the front server serves it directly (direct-api-routes.ts). */
export const PAID_ROUTE_PATHS = {
  chat: { path: "/api/v1/chat/completions", method: "POST", direct: true },
  responses: { path: "/api/v1/responses", method: "POST", direct: true },
  embeddings: { path: "/api/v1/embeddings", method: "POST", direct: true },
  topup: { path: "/api/v1/credits", method: "POST", direct: false },
} as const satisfies Record<string, { path: `/${string}`; method: "POST"; direct: boolean }>;

/** A paid route by its name: the registry's key, the payment's `route` column, and the prefix of its log events. */
export type PaidRoute = keyof typeof PAID_ROUTE_PATHS;

/** Every paid route, in the registry's order. */
export const PAID_ROUTES = Object.keys(PAID_ROUTE_PATHS) as PaidRoute[];
