// The paid-route registry: one row per route sold with x402, holding every fact about it that varies by route (its
// path and method, request schema and digest, what its payment buys, its challenge's description, its bazaar input and
// output, its OpenAPI operation, its discovery entry, whether the front server serves it directly, its metrics label
// and the prefix of its log events). Discovery, the OpenAPI document, the bazaar declarations, the direct routes, the
// metrics and the events derive from it: adding a paid route is a row here (and in paid-route-paths.ts) and its test.
import "server-only";
import type { z } from "zod";
import { chatRequestFields, chatRequestSchema } from "../schemas/chat-request-schema";
import type { ErrorCode } from "../errors";
import { PAID_ROUTE_PATHS, PAID_ROUTES, type PaidRoute } from "../http/paid-route-paths";
import { chatCompletionSchema, responsesObjectSchema, topUpResultSchema } from "../schemas/response-schemas";
import { topUpRequestSchema } from "../schemas/top-up-request-schema";
import { embeddingsRequestFields, embeddingsRequestSchema } from "../schemas/embeddings-request-schema";
import { embeddingsResponseSchema } from "../schemas/embeddings-response-body";
import { responsesRequestFields, responsesRequestSchema } from "../schemas/responses-request-schema";
import type { NetworkId } from "../verify";
import { PAID_ROUTE_EXAMPLES } from "./paid-route-examples";
import { callRequestDigest } from "./request-digest";

export { PAID_ROUTES, type PaidRoute } from "../http/paid-route-paths";

/** What a payment buys: one call of its route, served from its hold; or prepaid credit (a top-up). */
export type PaymentPurpose = "call" | "topup";

/** The OpenAPI operation of a paid route, which the OpenAPI document writes out (server/openapi/openapi-document.ts). */
interface PaidRouteOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** The component the request schema is published as. */
  requestSchemaId: string;
  /** The 200 answer: its schema and description, whether it carries a signed receipt, and its stream's form if any. */
  answer: { schema: z.ZodType; description: string; receipt: boolean; stream: "chat" | "responses" | null };
  /** Error codes besides the common ones. */
  errors: readonly ErrorCode[];
}

export interface PaidRouteRow {
  route: PaidRoute;
  path: string;
  method: "POST";
  /** Served by the front server straight from its built handler (server/http/direct-api-routes.ts). */
  direct: boolean;
  purpose: PaymentPurpose;
  /** What the route is, for the challenge's `resource.description` and discovery: one line (it travels in every 402's head). */
  description: string;
  /** The schema the route validates its body with (the same instance). */
  requestSchema: z.ZodType;
  /** The digest binding a payment to the request that paid (request-digest.ts); a top-up's binds its purchase instead. */
  requestDigest: ((body: object, network: NetworkId) => string) | null;
  /** The bazaar declaration's body and answer schemas (core fields: the 402 carries it in a bounded header) and example. */
  bazaar: {
    input: z.ZodType;
    output: z.ZodType;
    example: { input: Record<string, unknown>; output: Record<string, unknown> };
  };
  openapi: PaidRouteOperation;
  /** Also served from prepaid credit by a request signed for this path (discovery's `prepaid` lists it). */
  prepaidSigning: boolean;
  /** The `route` label of `signet_calls_total` for a refusal before the call. */
  callsLabel: "paid" | "topup";
  /** The prefix of the route's payment events (`<prefix>.settle_ok`, …). */
  events: string;
}

/** The chat body's core fields, as the route validates them; the route takes every other OpenAI field too. */
export const chatDiscoverySchema = chatRequestFields
  .pick({ model: true, messages: true, network: true, max_tokens: true, temperature: true, stream: true })
  .loose();

/** The Responses body's core fields, as the route validates them (each input item is checked further). */
const responsesDiscoverySchema = responsesRequestFields
  .pick({ model: true, input: true, instructions: true, network: true, max_output_tokens: true, stream: true })
  .loose();

/** The plain answer: the Responses object without `service_receipt`, which only a stream's last event carries. */
export const responsesAnswerSchema = responsesObjectSchema.omit({ service_receipt: true });

/** What a paid call may be refused with, besides the common codes. */
const PAID_CALL_ERRORS = [
  "agent_not_allowed",
  "payment_replay",
  "payment_request_mismatch",
  "invalid_payment_id",
  "payment_id_conflict",
] as const satisfies readonly ErrorCode[];
const SIGNED_ERRORS = [
  "missing_auth_headers",
  "invalid_signature",
  "request_expired",
  "nonce_replay",
] as const satisfies readonly ErrorCode[];
const CALL_TAIL = [
  "rate_limited",
  "invalid_network",
  "model_not_allowed",
  "network_not_supported",
  "mainnet_disabled",
  "upstream_error",
  "chain_unavailable",
  "settlement_pending",
  "upstream_timeout",
  "receipt_log_unavailable",
  "server_misconfigured",
] as const satisfies readonly ErrorCode[];

const ROWS = {
  chat: {
    purpose: "call",
    description: "OpenAI-compatible chat completion per call in USDC, with a signed receipt",
    requestSchema: chatRequestSchema,
    requestDigest: (body, network) => callRequestDigest("chat", body, network),
    bazaar: { input: chatDiscoverySchema, output: chatCompletionSchema, example: PAID_ROUTE_EXAMPLES.chat },
    openapi: {
      operationId: "createChatCompletion",
      summary: "Paid chat completion (x402, one payment per call)",
      description:
        "OpenAI-shaped. Without a payment header: 402 with the x402 challenge (v2 in PAYMENT-REQUIRED, v1 in the body). With one: verify, settle, credit, inference, debit, log, and a signed receipt. A payment settled but not served (upstream failure) stays as credit and the same header can be sent again once. A request signed like a prepaid one (X-Agent-Pubkey, X-Agent-Signature naming this path; `nonce`, `timestamp` and optionally `max_cost_usdc` in the body) is served from the agent's prepaid credit instead, with the same body, answer and receipt.",
      tags: ["inference"],
      requestSchemaId: "ChatRequest",
      answer: {
        schema: chatCompletionSchema,
        description: "The completion, with its receipt",
        receipt: true,
        stream: "chat",
      },
      errors: [...PAID_CALL_ERRORS, ...SIGNED_ERRORS, "insufficient_credits", ...CALL_TAIL],
    },
    prepaidSigning: true,
    callsLabel: "paid",
    events: "chat",
  },
  responses: {
    purpose: "call",
    description: "OpenAI Responses API (text and function tools) per call in USDC, with a signed receipt",
    requestSchema: responsesRequestSchema,
    requestDigest: (body, network) => callRequestDigest("responses", body, network),
    bazaar: { input: responsesDiscoverySchema, output: responsesAnswerSchema, example: PAID_ROUTE_EXAMPLES.responses },
    openapi: {
      operationId: "createResponse",
      summary: "Paid Responses API call (x402, one payment per call)",
      description:
        "OpenAI's Responses API for one stateless answer. A request signed like a prepaid one (X-Agent-Pubkey, X-Agent-Signature naming this path; `nonce`, `timestamp` and optionally `max_cost_usdc` in the body) is served from the agent's prepaid credit; any other is paid exactly as the chat route (the same 402 challenge, price and money path; a payment made for a chat call is refused here with 409 `payment_request_mismatch`, and the other way round). `input` (messages, earlier `function_call` items and their `function_call_output`) and `instructions` map onto chat messages, which the receipt's prompt hash covers; function `tools` are passed to the model, and its calls come back as `function_call` output items (not covered by the response hash, which covers the text). `store: true`, `previous_response_id`, `conversation`, `background: true`, hosted tools, `tools` with `stream: true`, `include` and non-text input are 400 `invalid_request` naming the field in `detail`.",
      tags: ["inference"],
      requestSchemaId: "ResponsesRequest",
      answer: {
        schema: responsesObjectSchema,
        description: "The response, with its receipt",
        receipt: true,
        stream: "responses",
      },
      errors: [...PAID_CALL_ERRORS, ...SIGNED_ERRORS, "insufficient_credits", ...CALL_TAIL],
    },
    prepaidSigning: true,
    callsLabel: "paid",
    events: "responses",
  },
  embeddings: {
    purpose: "call",
    description: "OpenAI-compatible embeddings per call in USDC, with a signed receipt over the inputs and the vectors",
    requestSchema: embeddingsRequestSchema,
    requestDigest: (body, network) => callRequestDigest("embeddings", body, network),
    bazaar: {
      input: embeddingsRequestFields
        .pick({ model: true, input: true, encoding_format: true, dimensions: true, network: true })
        .loose(),
      output: embeddingsResponseSchema,
      example: PAID_ROUTE_EXAMPLES.embeddings,
    },
    openapi: {
      operationId: "createEmbeddings",
      summary: "Paid embeddings (x402, one payment per call)",
      description:
        "OpenAI's embeddings request (`input`: a text, texts, token ids or lists of token ids; `encoding_format` float or base64; `dimensions`), paid exactly as the chat route, or from prepaid credit by a request signed for this path (`nonce`, `timestamp`, optionally `max_cost_usdc` in the body). The receipt's prompt hash covers the canonical inputs and its response hash the vectors as float32 values, whichever encoding carried them. Embeddings are never streamed: a `stream` field is 400 `streaming_not_supported`. `local/hash-embed-1` is a deterministic test model, not a semantic one.",
      tags: ["inference"],
      requestSchemaId: "EmbeddingsRequest",
      answer: {
        schema: embeddingsResponseSchema,
        description: "The embeddings, with their receipt",
        receipt: true,
        stream: null,
      },
      errors: [...PAID_CALL_ERRORS, ...SIGNED_ERRORS, "streaming_not_supported", "insufficient_credits", ...CALL_TAIL],
    },
    prepaidSigning: true,
    callsLabel: "paid",
    events: "embeddings",
  },
  topup: {
    purpose: "topup",
    description: "Prepaid credit in USDC, spent by signed requests on /api/v1/inference",
    requestSchema: topUpRequestSchema,
    requestDigest: null,
    bazaar: { input: topUpRequestSchema, output: topUpResultSchema, example: PAID_ROUTE_EXAMPLES.topup },
    openapi: {
      operationId: "topUpCredits",
      summary: "Buy prepaid credit with an x402 payment",
      tags: ["credits"],
      requestSchemaId: "TopUpRequest",
      answer: { schema: topUpResultSchema, description: "Credited", receipt: false, stream: null },
      errors: [
        ...PAID_CALL_ERRORS,
        "rate_limited",
        "invalid_network",
        "network_not_supported",
        "mainnet_disabled",
        "upstream_error",
        "chain_unavailable",
        "settlement_pending",
        "server_misconfigured",
      ],
    },
    prepaidSigning: false,
    callsLabel: "topup",
    events: "credits",
  },
} as const satisfies Record<PaidRoute, Omit<PaidRouteRow, "route" | "path" | "method" | "direct">>;

/** Every paid route's row, by its name. */
export const PAID_ROUTE_REGISTRY = Object.fromEntries(
  PAID_ROUTES.map((route): [PaidRoute, PaidRouteRow] => [route, { route, ...PAID_ROUTE_PATHS[route], ...ROWS[route] }]),
) as Readonly<Record<PaidRoute, PaidRouteRow>>;

/** A paid route's row. */
export function paidRoute(route: PaidRoute): PaidRouteRow {
  return PAID_ROUTE_REGISTRY[route];
}

/** A route name as stored (a payment's `route` column), or null for a name no row has. */
export function paidRouteNamed(name: string): PaidRoute | null {
  return (PAID_ROUTES as readonly string[]).includes(name) ? (name as PaidRoute) : null;
}

/** What admitPayment takes from a route's row: its name, what its payment buys, and its challenge's description. */
export function paidRouteAdmission(route: PaidRoute): {
  route: PaidRoute;
  purpose: PaymentPurpose;
  description: string;
} {
  const row = PAID_ROUTE_REGISTRY[route];
  return { route, purpose: row.purpose, description: row.description };
}

/** How the discovery catalogues file the service: in /.well-known/x402 (each 402 names the service only). */
export const SERVICE_TAGS = ["inference", "llm", "openai-compatible", "signed-receipts"] as const;

/** The paid route served at `path`, or null. */
export function paidRouteAt(path: string): PaidRoute | null {
  return PAID_ROUTES.find((route) => PAID_ROUTE_PATHS[route].path === path) ?? null;
}

/**
 * The route's public URL: SERVICE_BASE_URL and its path.
 * SECURITY: signed offers and receipts name this URL, never the Host a request claimed, so a client cannot obtain the
 * service's signature over a URL that is not the service's.
 */
export function paidRouteUrl(baseUrl: string, route: PaidRoute): string {
  return `${baseUrl}${PAID_ROUTE_PATHS[route].path}`;
}
