// The service's x402-paid resources (the chat route, the responses route and the top-up route): their paths, and the public URL that
// challenges, signed offers, signed receipts and discovery name them by.
import "server-only";

export type PaidResource = "chat" | "responses" | "topup";

export const PAID_RESOURCE_PATHS = {
  chat: "/api/v1/chat/completions",
  responses: "/api/v1/responses",
  topup: "/api/v1/credits",
} as const satisfies Record<PaidResource, string>;

/**
 * What each paid resource is, for the challenge's `resource.description` and the discovery catalogues: one line, as it
 * travels in every 402's head (which a default proxy bounds).
 */
export const PAID_RESOURCE_DESCRIPTIONS = {
  chat: "OpenAI-compatible chat completion per call in USDC, with a signed receipt",
  responses: "OpenAI Responses API (text) per call in USDC, with a signed receipt",
  topup: "Prepaid credit in USDC, spent by signed requests on /api/v1/inference",
} as const satisfies Record<PaidResource, string>;

/** How the discovery catalogues file the service: in /.well-known/x402 (each 402 names the service only). */
export const SERVICE_TAGS = ["inference", "llm", "openai-compatible", "signed-receipts"] as const;

/** The paid resource served at `path`, or null. */
export function paidResourceAt(path: string): PaidResource | null {
  for (const [resource, at] of Object.entries(PAID_RESOURCE_PATHS) as [PaidResource, string][]) if (at === path) return resource;
  return null;
}

/**
 * The resource's public URL: SERVICE_BASE_URL and its path.
 * SECURITY: signed offers and receipts name this URL, never the Host a request claimed, so a client cannot obtain the
 * service's signature over a URL that is not the service's.
 */
export function paidResourceUrl(baseUrl: string, resource: PaidResource): string {
  return `${baseUrl}${PAID_RESOURCE_PATHS[resource]}`;
}
