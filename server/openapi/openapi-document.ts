// The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with, so it cannot
// drift: request bodies from the route schemas, response bodies from ./response-schemas, statuses and error codes from
// the one error table. Served at GET /api/v1/openapi.json (and /openapi.json) and rendered at /docs.
import { MCP_PATH, MCP_TOOLS } from "../mcp/mcp-payment-binding";
import "server-only";
import { z } from "zod";
import { errorTableMarkdown } from "./error-table";
import { ERROR_STATUS, type ErrorCode } from "../errors";
import { claimGrantSchema } from "../grants/claim-grant";
import { verifyRequestSchema, verifyResponseSchema } from "../schemas/verify-request-schema";
import { signInSchema } from "../operator-auth/sign-in";
import { inferenceRequestSchema } from "../schemas/inference-request-schema";
import { embeddingsResponseSchema } from "../schemas/embeddings-response-body";
import type { NetworkRegistry } from "../verify";
import { PAID_ROUTE_REGISTRY, PAID_ROUTES, type PaidRouteRow } from "../x402/paid-routes";
import * as r from "../schemas/response-schemas";

type Json = Record<string, unknown>;

// The routes' own request schemas (the same instances they validate with) join the components: the paid routes' from
// the paid-route registry.
for (const route of PAID_ROUTES)
  PAID_ROUTE_REGISTRY[route].requestSchema.register(r.openApiComponents, {
    id: PAID_ROUTE_REGISTRY[route].openapi.requestSchemaId,
  });
embeddingsResponseSchema.register(r.openApiComponents, {
  id: "EmbeddingsResponse",
  description: "OpenAI's embeddings response: one embedding per input, in input order",
});
inferenceRequestSchema.register(r.openApiComponents, { id: "InferenceRequest" });
claimGrantSchema.register(r.openApiComponents, { id: "GrantClaim" });
verifyRequestSchema.register(r.openApiComponents, { id: "VerifyRequest" });
verifyResponseSchema.register(r.openApiComponents, {
  id: "Verdict",
  description: "The hosted verifier's signed verdict",
});
signInSchema.register(r.openApiComponents, { id: "OperatorSignIn" });
// One model is an item of the list: GET /api/v1/models/{id} answers the same object.
const modelSchema = r.modelListSchema.shape.data.element.register(r.openApiComponents, {
  id: "Model",
  description: "One model, in OpenAI's `models.retrieve` shape plus its price and networks",
});

/** `$ref` to a registered schema. */
function ref(schema: z.ZodType): Json {
  const id = r.openApiComponents.get(schema)?.id;
  if (!id) throw new Error("schema is not registered with the OpenAPI components");
  return { $ref: `#/components/schemas/${id}` };
}

const header = (description: string, schema: Json = { type: "string" }) => ({ description, schema });
/** A header sent on some answers of the status only. */
const optionalHeader = (description: string) => ({ ...header(description), required: false });

const PAID_REQUEST_HEADERS = [
  {
    name: "PAYMENT-SIGNATURE",
    in: "header",
    required: false,
    description:
      "x402 v2 payment payload, base64 JSON (the stock client's header). Its `extensions[\"payment-identifier\"].info.id` (16-128 of `[A-Za-z0-9_-]`) is the client's payment id: unique per payer, bound to the first payment claimed under it",
    schema: { type: "string" },
  },
  {
    name: "X-Payment",
    in: "header",
    required: false,
    description: "The same payload under its v1 name",
    schema: { type: "string" },
  },
];
const SIGNED_REQUEST_HEADERS = [
  {
    name: "X-Agent-Pubkey",
    in: "header",
    required: true,
    description: "The agent's Ed25519 public key, base58",
    schema: { type: "string" },
  },
  {
    name: "X-Agent-Signature",
    in: "header",
    required: true,
    description:
      "Ed25519 over `signet-prepaid-v1\\nPOST <origin>/api/v1/inference\\n` (origin: this service's public base URL) followed by the exact body bytes, base58",
    schema: { type: "string" },
  },
];

/** A paid route's prepaid way: the prepaid route's signature headers, naming the route's own path. */
const signedHeadersFor = (path: string) => [
  {
    name: "X-Agent-Pubkey",
    in: "header",
    required: false,
    description: "Prepaid requests: the agent's Ed25519 public key, base58",
    schema: { type: "string" },
  },
  {
    name: "X-Agent-Signature",
    in: "header",
    required: false,
    description: `Prepaid requests: Ed25519 over \`signet-prepaid-v1\\nPOST <origin>${path}\\n\` (origin: this service's public base URL) followed by the exact body bytes, base58`,
    schema: { type: "string" },
  },
];

const SETTLEMENT_PENDING_NOTE =
  ". `settlement_pending`: the payment's transaction was sent and its confirmation not seen yet; the body has `transaction`, `network` and `retry_after` (seconds, also `Retry-After`). Retry the same request with the same payment header.";

/** Error responses for `codes`, grouped by status, each listing its codes. */
function errors(codes: ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error: ${list.map((c) => `\`${c}\``).join(", ")}${list.includes("settlement_pending") ? SETTLEMENT_PENDING_NOTE : ""}`,
      ...(status === 429 ||
      list.includes("settlement_pending") ||
      list.includes("receipt_log_unavailable") ||
      list.includes("database_unavailable")
        ? { headers: { "Retry-After": header("Seconds to wait", { type: "integer" }) } }
        : {}),

      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return out;
}

const COMMON: ErrorCode[] = ["invalid_request", "payload_too_large", "database_unavailable", "internal_error"];

/**
 * Sets the enum of a 402 body's `accepts[].network` (x402 v1 names) in the PaymentError component to the v1 names of
 * `networks`; throws when the component no longer has that field, so a schema change cannot drop the enum unseen.
 */
function setV1NetworkEnum(components: Json, networks: NetworkRegistry): void {
  type Node = { properties?: Record<string, Node>; items?: Node; enum?: string[] };
  const network = (components.PaymentError as Node | undefined)?.properties?.accepts?.items?.properties?.network;
  if (!network) throw new Error("the PaymentError component has no accepts[].network to name the networks in");
  network.enum = networks.rows.map((n) => n.x402V1Name);
}

/** Builds the document for a service at `baseUrl` that takes payment on `networks` (its configured registry). */
/**
 * What the service asks now, for each paid operation's `x-payment-info` (agentcash's OpenAPI discovery reads it): the
 * flat price of a call and the networks (CAIP-2) that take payment. Absent, the operations carry none (the docs).
 */
export interface PaymentFacts {
  flatPriceUsdc: string;
  networks: readonly string[];
  /** Signatures of the service's origin by its payees' keys (`x-agentcash-provenance`, which x402scan checks). */
  ownershipProofs: readonly string[];
}

export function buildOpenApiDocument(baseUrl: string, networks: NetworkRegistry, payment?: PaymentFacts): Json {
  const { schemas } = z.toJSONSchema(r.openApiComponents, {
    target: "draft-2020-12",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  const components: Json = {};
  // Each component is a schema of the document, not a standalone JSON Schema document.
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
    components[id] = rest;
  }
  setV1NetworkEnum(components, networks);
  const json = (schema: z.ZodType) => ({ "application/json": { schema: ref(schema) } });
  const body = (schema: z.ZodType) => ({ required: true, content: json(schema) });

  const receiptHeaders = {
    "X-Service-Receipt": header(
      "The signed receipt, base64 JSON (see the Receipt schema). Not on a stream: its receipt is the last event",
    ),
    "X-Credit-Balance-Usdc": header("The agent's credit balance on this network after the call. Not on a stream"),
    "X-Service-Receipt-Proof": header(
      "The URL of the receipt's inclusion proof in the public receipt log (GET /api/v1/receipts/{id}/proof). Not on a stream: its receipt event carries `log_proof_url`",
    ),
  };
  const settlementHeaders = {
    "PAYMENT-RESPONSE": header(
      "x402 v2 settlement response, base64 JSON. A plain answer's has `extensions[\"offer-receipt\"].info.receipt`: the x402 signed receipt (JWS); a stream's comes in its final event",
    ),
    "X-Payment-Response": header("The same, under its v1 name"),
    "X-Answer-Replayed": optionalHeader(
      "`true` when this is the stored answer of a call served earlier with the same payment and the same request (its answer lost in transit): the same body and receipt, no second service",
    ),
  };
  const paymentRequired = {
    description:
      "Payment required: always `code` payment_required. The x402 v2 challenge (PaymentRequired) is in the PAYMENT-REQUIRED header (and X-Payment-Required); the body is x402 v1's challenge (`x402Version: 1`, `accepts`) with the error object's fields beside it, not under `error`. A refused payment (undecodable, not matching the challenge, not verified, or not settled: nothing charged) says why in `reason`; pay the challenge and retry",
    headers: {
      "PAYMENT-REQUIRED": header(
        "The challenge (PaymentRequired), base64 JSON, with its x402 extensions (bazaar, signed offers, payment-identifier)",
      ),
      "X-Payment-Required": header(
        "What paying needs, under the seed's name: base64 JSON of the version, `resource.url` and the requirements (no extensions, no per-challenge blockhash)",
      ),
    },
    content: json(r.paymentErrorSchema),
  };
  const stream = {
    "text/event-stream": {
      schema: {
        description:
          "With `stream: true`: `data: <ChatCompletionChunk>` events, a final chunk with `finish_reason` and `usage` (with `stream_options.include_usage`, the usage in a chunk with `choices: []` after it), then `data: <ReceiptChunk>` (a chunk with `choices: []` whose `service_receipt` is the ReceiptEvent) and `data: [DONE]`. A provider's tool calls come as `delta.tool_calls` fragments, with `finish_reason` `tool_calls`. The receipt's response_hash covers the concatenated `delta.content` of all chunks (text only, as a plain answer's covers `message.content`); the receipt chunk adds nothing. An upstream failure mid-stream ends it with `data: <StreamErrorEvent>`.",
        oneOf: [ref(r.chatCompletionChunkSchema), ref(r.receiptChunkSchema), ref(r.streamErrorEventSchema)],
      },
    },
  };
  const responsesStream = {
    "text/event-stream": {
      schema: {
        description:
          "With `stream: true`: `event: <type>` / `data: <ResponsesStreamEvent>` in OpenAI's order: response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta (one per piece of text), response.output_text.done, response.content_part.done, response.output_item.done, then for each function call the model makes response.output_item.added (a function_call item, output_index 1, 2, …), response.function_call_arguments.delta, response.function_call_arguments.done and response.output_item.done, then response.completed (response.incomplete when the output cap cut the answer), with rising `sequence_number`s and no `[DONE]`. The last event's `response.service_receipt` is the ReceiptEvent: the receipt's response_hash covers the concatenated deltas (the output_text). A failure after the first event ends the stream with an `error` event.",
        ...ref(r.responsesStreamEventSchema),
      },
    },
  };

  const streams = { chat: stream, responses: responsesStream };
  /** A paid route's operation, from its registry row: paid with x402 and, where the row says so, from prepaid credit too. */
  const paidOperation = (row: PaidRouteRow): Json => {
    const op = row.openapi;
    const signed = row.prepaidSigning;
    const paidOnly = (headers: Record<string, { description: string }>) =>
      signed
        ? Object.fromEntries(
            Object.entries(headers).map(([name, h]) => [
              name,
              { ...h, description: `${h.description}. Paid requests only`, required: false },
            ]),
          )
        : headers;
    const answerHeaders = op.answer.receipt
      ? { ...receiptHeaders, ...paidOnly(settlementHeaders) }
      : { "X-Credit-Balance-Usdc": receiptHeaders["X-Credit-Balance-Usdc"], ...settlementHeaders };
    const signedPaymentRequired = {
      ...paymentRequired,
      description: `${paymentRequired.description}. A signed (prepaid) request without enough free credit: \`insufficient_credits\` (an Error, without the challenge headers)`,
      headers: Object.fromEntries(
        Object.entries(paymentRequired.headers).map(([name, h]) => [name, { ...h, required: false }]),
      ),
      content: {
        "application/json": { schema: { anyOf: [ref(r.paymentErrorSchema), { $ref: "#/components/schemas/Error" }] } },
      },
    };
    // A call costs the flat price; a top-up, the amount its body names.
    const paymentInfo = payment && {
      price:
        row.purpose === "call"
          ? { mode: "fixed", currency: "USD", amount: payment.flatPriceUsdc }
          : { mode: "dynamic", currency: "USD" },
      protocols: [{ x402: { versions: [2, 1], networks: [...payment.networks] } }],
    };
    return {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [...op.tags],
      ...(paymentInfo ? { "x-payment-info": paymentInfo } : {}),
      parameters: [...PAID_REQUEST_HEADERS, ...(signed ? signedHeadersFor(row.path) : [])],
      requestBody: body(row.requestSchema),
      responses: {
        "200": {
          description: op.answer.description,
          headers: answerHeaders,
          content: op.answer.stream
            ? { ...json(op.answer.schema), ...streams[op.answer.stream] }
            : json(op.answer.schema),
        },
        ...errors([...COMMON, ...op.errors]),
        // After the error table's rows: its 402 codes (insufficient_credits) are named in this answer, which carries
        // the challenge as well.
        "402": signed ? signedPaymentRequired : paymentRequired,
      },
    };
  };

  const paths: Json = {
    ...Object.fromEntries(
      PAID_ROUTES.map((route) => [
        PAID_ROUTE_REGISTRY[route].path,
        { post: paidOperation(PAID_ROUTE_REGISTRY[route]) },
      ]),
    ),
    "/api/v1/inference": {
      post: {
        operationId: "createPrepaidInference",
        summary: "Prepaid inference (Ed25519-signed request, spends credit)",
        description:
          "Holds the worst-case cost, runs the model, captures the actual cost (capped by `max_cost_usdc`), and answers with a signed receipt.",
        tags: ["inference"],
        parameters: SIGNED_REQUEST_HEADERS,
        requestBody: body(inferenceRequestSchema),
        responses: {
          "200": {
            description: "The completion, with its receipt",
            headers: receiptHeaders,
            content: { ...json(r.chatCompletionSchema), ...stream },
          },
          ...errors([
            ...COMMON,
            "missing_auth_headers",
            "invalid_signature",
            "request_expired",
            "nonce_replay",
            "insufficient_credits",
            "rate_limited",
            "invalid_network",
            "model_not_allowed",
            "mainnet_disabled",
            "upstream_error",
            "upstream_timeout",
            "receipt_log_unavailable",
            "server_misconfigured",
          ]),
        },
      },
    },
    "/api/v1/credits/{pubkey}": {
      get: {
        operationId: "readCredits",
        summary: "An agent's balance and recent ledger entries (signed by that agent)",
        tags: ["credits"],
        parameters: [
          { name: "pubkey", in: "path", required: true, schema: { type: "string" } },
          { name: "network", in: "query", required: false, schema: { type: "string" } },
          { name: "X-Agent-Pubkey", in: "header", required: true, schema: { type: "string" } },
          {
            name: "X-Agent-Timestamp",
            in: "header",
            required: true,
            description: "Unix ms, within the request window",
            schema: { type: "string" },
          },
          {
            name: "X-Agent-Signature",
            in: "header",
            required: true,
            description:
              "Ed25519 over `signet-prepaid-v1\\nGET <origin>/api/v1/credits/<pubkey>\\n<timestamp>` (origin: this service's public base URL), base58",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": { description: "Balance and entries", content: json(r.creditsSchema) },
          ...errors([
            "invalid_request",
            "missing_auth_headers",
            "invalid_signature",
            "request_expired",
            "invalid_network",
            "internal_error",
          ]),
        },
      },
    },
    "/api/v1/grants/challenge": {
      get: {
        operationId: "grantChallenge",
        summary: "The message a newcomer's wallet signs to claim a grant",
        tags: ["grants"],
        parameters: [{ name: "agent_pubkey", in: "query", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "The challenge", content: json(r.grantChallengeSchema) },
          ...errors(["invalid_request", "rate_limited", "internal_error"]),
        },
      },
    },
    "/api/v1/grants": {
      post: {
        operationId: "claimGrant",
        summary: "Claim a one-time credit grant with a wallet signature",
        tags: ["grants"],
        requestBody: body(claimGrantSchema),
        responses: {
          "200": { description: "Granted", content: json(r.grantResultSchema) },
          ...errors([
            ...COMMON,
            "invalid_signature",
            "challenge_expired",
            "grant_already_claimed",
            "grant_ip_limit",
            "grant_budget_exhausted",
          ]),
        },
      },
    },
    "/api/v1/models": {
      get: {
        operationId: "listModels",
        summary: "The models offered, with the per-call price (free)",
        tags: ["inference"],
        responses: { "200": { description: "OpenAI-style list", content: json(r.modelListSchema) } },
      },
    },
    "/api/v1/models/{id}": {
      get: {
        operationId: "retrieveModel",
        summary:
          "One model offered, by its id (`<vendor>/<model>`, slash included), in OpenAI's models.retrieve shape (free)",
        tags: ["inference"],
        parameters: [
          {
            name: "id",
            in: "path",
            required: true,
            description: "The model id, e.g. `local/echo-1`; its slash is part of the path",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": { description: "The model", content: json(modelSchema) },
          ...errors(["model_not_found", "database_unavailable", "internal_error"]),
        },
      },
    },
    "/api/v1/receipts/{id}": {
      get: {
        operationId: "getReceipt",
        summary: "A stored receipt by inference id or transaction signature",
        tags: ["receipts"],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "The signed receipt", content: json(r.receiptSchema) },
          ...errors(["not_found", "internal_error"]),
        },
      },
    },
    "/api/v1/receipts/{id}/proof": {
      get: {
        operationId: "getReceiptLogProof",
        summary: "A receipt's inclusion proof in the public receipt log, against a signed checkpoint",
        description:
          "`log_pending` (409, `Retry-After`): the receipt is staged and not yet in a signed checkpoint (the log signs one about every second). `not_found` with `error.reason` not_logged: a receipt issued before the log existed.",
        tags: ["receipts"],
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } },
          {
            name: "tree_size",
            in: "query",
            required: false,
            description: "Prove against the checkpoint of this size",
            schema: { type: "integer" },
          },
          {
            name: "cosigned",
            in: "query",
            required: false,
            description: "`true`: prove against the newest checkpoint a witness cosigned",
            schema: { type: "string", enum: ["true", "false"] },
          },
        ],
        responses: {
          "200": { description: "The proof and its checkpoint", content: json(r.receiptLogProofSchema) },
          "409": {
            description: "Error: `log_pending`",
            headers: { "Retry-After": header("Seconds to wait", { type: "integer" }) },
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
          ...errors(["invalid_request", "not_found", "internal_error"]),
        },
      },
    },
    "/log/checkpoint": {
      get: {
        operationId: "logCheckpoint",
        summary:
          "The receipt log's latest signed checkpoint (C2SP tlog-checkpoint), with witness cosignatures; an empty log's is size 0",
        tags: ["receipts"],
        responses: {
          "200": { description: "A signed note", content: { "text/plain": { schema: { type: "string" } } } },
          ...errors(["database_unavailable", "internal_error"]),
        },
      },
    },
    "/log/checkpoints/{size}": {
      get: {
        operationId: "logCheckpointOfSize",
        summary: "A past checkpoint by tree size, with the cosignatures added since",
        tags: ["receipts"],
        parameters: [{ name: "size", in: "path", required: true, schema: { type: "integer" } }],
        responses: {
          "200": { description: "A signed note", content: { "text/plain": { schema: { type: "string" } } } },
          ...errors(["invalid_request", "not_found"]),
        },
      },
    },
    "/log/tile/{path}": {
      get: {
        operationId: "logTile",
        summary: "C2SP tlog-tiles: hash tiles `tile/<L>/<N>[.p/<W>]` and entry bundles `tile/entries/<N>[.p/<W>]`",
        description:
          "Tiles are immutable once served, full or partial (`Cache-Control: public, max-age=31536000, immutable`), and gzip-encoded when `Accept-Encoding` takes gzip (`Vary: Accept-Encoding`).",
        tags: ["receipts"],
        parameters: [{ name: "path", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "Tile bytes",
            content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
          },
          ...errors(["not_found"]),
        },
      },
    },
    "/log/key": {
      get: {
        operationId: "logKey",
        summary: "The receipt log's origin and verifier key (not the operator key)",
        tags: ["receipts"],
        responses: { "200": { description: "The log key", content: json(r.logKeySchema) } },
      },
    },
    "/log/cosignature": {
      post: {
        operationId: "logCosignature",
        summary: "A witness publishes its cosignature of a checkpoint (c2sp.org/tlog-cosignature)",
        description:
          "Body: the checkpoint note with the witness's cosignature line. Only witnesses listed in LOG_WITNESS_KEYS are accepted.",
        tags: ["receipts"],
        requestBody: { required: true, content: { "text/plain": { schema: { type: "string" } } } },
        responses: {
          "200": {
            description: "The checkpoint with every cosignature it has",
            content: { "text/plain": { schema: { type: "string" } } },
          },
          ...errors(["invalid_request", "invalid_signature", "forbidden", "not_found"]),
        },
      },
    },
    "/api/v1/operator-key": {
      get: {
        operationId: "operatorKey",
        summary: "The key that signs receipts, and the keys it retired",
        tags: ["receipts"],
        responses: { "200": { description: "Ed25519 public keys", content: json(r.operatorKeySchema) } },
      },
    },
    "/api/v1/openapi.json": {
      get: {
        operationId: "openapi",
        summary: "This document",
        tags: ["discovery"],
        responses: {
          "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "openapiAtRoot",
        summary: "This document again, at the root, where x402 crawlers look for it first",
        tags: ["discovery"],
        responses: {
          "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    },
    "/.well-known/did.json": {
      get: {
        operationId: "didDocument",
        summary: "did:web document: binds the key behind the JWS offers and receipts (the operator key) to this domain",
        tags: ["discovery"],
        responses: {
          "200": {
            description: "DID document",
            content: { "application/did+json": { schema: ref(r.didDocumentSchema) } },
          },
        },
      },
    },
    "/.well-known/x402": {
      get: {
        operationId: "x402Discovery",
        summary: "x402 discovery: the paid resources, networks, keys and verifier",
        tags: ["discovery"],
        responses: { "200": { description: "Discovery document", content: json(r.discoverySchema) } },
      },
    },
    "/api/verify": {
      post: {
        operationId: "verifyReceipt",
        summary: "Hosted verifier: the five checks, with a signed verdict",
        description:
          "`response` is the chat-completion body, an array of stream chunks, the concatenated streamed text, or `{ result }`.",
        tags: ["verifier"],
        requestBody: body(verifyRequestSchema),
        responses: {
          "200": { description: "The signed verdict", content: json(verifyResponseSchema) },
          ...errors([...COMMON, "upstream_error"]),
        },
      },
    },
    "/api/verify/operator-key": {
      get: {
        operationId: "verifierKey",
        summary: "The key that signs verdicts",
        tags: ["verifier"],
        responses: { "200": { description: "Ed25519 public key", content: json(r.publicKeySchema) } },
      },
    },
    "/api/operator/challenge": {
      get: {
        operationId: "operatorChallenge",
        summary: "Operator sign-in challenge",
        tags: ["operator"],
        responses: {
          "200": {
            description: "Message to sign",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { message: { type: "string" }, expires_at: { type: "string" } },
                  required: ["message", "expires_at"],
                },
              },
            },
          },
        },
      },
    },
    "/api/operator/session": {
      post: {
        operationId: "operatorSignIn",
        summary: "Operator sign-in (sets the session cookie)",
        tags: ["operator"],
        requestBody: body(signInSchema),
        responses: {
          "200": {
            description: "Signed in",
            headers: { "Set-Cookie": header("The session") },
            content: { "application/json": { schema: { type: "object" } } },
          },
          ...errors([...COMMON, "invalid_signature", "challenge_expired", "forbidden"]),
        },
      },
      delete: {
        operationId: "operatorSignOut",
        summary: "Sign out",
        tags: ["operator"],
        responses: {
          "200": { description: "Signed out", content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    },
    "/api/operator/login-link": {
      get: {
        operationId: "operatorLoginLink",
        summary: "Redeem a CLI-signed login link",
        tags: ["operator"],
        parameters: [
          { name: "m", in: "query", required: true, schema: { type: "string" } },
          { name: "s", in: "query", required: true, schema: { type: "string" } },
        ],
        responses: {
          "303": { description: "To /dashboard, with the session cookie" },
          ...errors(["invalid_request", "invalid_signature", "challenge_expired", "forbidden"]),
        },
      },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      // Redoc heads the page "<title> (<version>)".
      title: "Signet API",
      version: "v1",
      summary: "Pay-per-call signed inference",
      description: [
        "Every answer carries an Ed25519-signed receipt that anyone can verify. Paid calls use x402 v2 (USDC on Solana or Base); prepaid calls use Ed25519-signed requests.",
        "",
        "Every error is a JSON body in OpenAI's shape, `{ error: { message, type, param, code }, request_id }`, with a stable code in `error.code`:",
        "",
        errorTableMarkdown({ meanings: false }),
        "",
        "What each code means, and what to do next: docs/errors.md in the repository.",
        "",
        `The same calls are MCP tools at ${baseUrl}${MCP_PATH} (streamable HTTP): \`chat\` and \`respond\`, paid with x402's MCP transport (the payment in \`_meta["x402/payment"]\`, the receipt in \`_meta["org.signet/receipt"]\`), and the free ${MCP_TOOLS.free.map((t) => `\`${t}\``).join(", ")}.`,
        "",
        "Every 402 of a paid route is `payment_required` with the challenge: x402 v2's in the PAYMENT-REQUIRED header, x402 v1's as the body (`x402Version: 1`, `accepts`). That body has no `error` key, which x402 v1 reserves for its reason codes: the error object's fields (`message`, `type`, `param`, `code`, `reason`) sit beside the challenge, where the openai SDK reads them. A refused payment says why in `reason`.",
      ].join("\n"),
    },
    servers: [{ url: baseUrl }],
    ...(payment && payment.ownershipProofs.length > 0
      ? { "x-agentcash-provenance": { ownershipProofs: [...payment.ownershipProofs] } }
      : {}),
    tags: ["inference", "credits", "grants", "receipts", "verifier", "discovery", "operator"].map((name) => ({ name })),
    paths,
    components: { schemas: components },
  };
}
