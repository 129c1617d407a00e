// The response bodies' zod schemas, for the OpenAPI document. Request schemas live with the routes that
// validate with them; these describe what the routes answer, and a test validates real answers against them.
import "server-only";
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../errors";

/** The document's components: every schema registered here becomes `#/components/schemas/<id>`. */
export const openApiComponents = z.registry<{ id: string; description?: string }>();

const base58 = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]+$/);
const usdcString = z
  .string()
  .regex(/^\d+(\.\d{1,6})?$/)
  .describe("A USDC amount as a decimal string, at most 6 decimals");

const errorObjectSchema = z
  .object({
    message: z.string().describe("Human-readable, safe to show"),
    type: z
      .string()
      .describe(
        "OpenAI's error type: invalid_request_error, authentication_error, payment_required_error, permission_error, rate_limit_error or server_error",
      ),
    param: z.string().nullable().describe("The request field at fault, or null"),
    code: z
      .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
      .describe("Stable error code; see the table in the description"),
    detail: z.string().optional().describe("The offending field, for invalid_request (the same as param)"),
    balance_usdc: usdcString
      .optional()
      .describe("The agent's spendable credit on the call's network, where it matters"),
    reserved_usdc: usdcString
      .optional()
      .describe("A paid call's credit kept reserved for the retry of its payment (upstream_error after settlement)"),
  })
  .loose();

/** @public Registered as the OpenAPI component `Error`; the document reads it from the registry. */
export const errorBodySchema = z
  .object({
    error: errorObjectSchema.describe("OpenAI's error object, with Signet's stable code in `code`"),
    request_id: z.string().optional(),
  })
  .loose()
  .register(openApiComponents, { id: "Error" });

const paymentRequirementsSchema = z
  .object({
    scheme: z.literal("exact"),
    network: z.string().describe("CAIP-2 network id"),
    amount: z.string().regex(/^\d+$/).describe("Atomic USDC units"),
    asset: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().int(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

/** @public Registered as the OpenAPI component `PaymentRequired`; the document reads it from the registry. */
export const paymentRequiredSchema = z
  .object({
    x402Version: z.literal(2),
    error: z.string().optional(),
    resource: z
      .object({ url: z.string(), description: z.string().optional(), mimeType: z.string().optional() })
      .loose(),
    accepts: z.array(paymentRequirementsSchema).min(1),
    extensions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "The x402 extensions of a paid resource: `bazaar` (how to call it and what it answers), `offer-receipt` (`info.offers`: one JWS-signed offer per accepted requirement, by the key in /.well-known/did.json), `payment-identifier` (payment ids accepted)",
      ),
  })
  .loose()
  .register(openApiComponents, {
    id: "PaymentRequired",
    description:
      "The x402 v2 challenge (also base64 JSON in PAYMENT-REQUIRED; X-Payment-Required carries what paying needs of it)",
  });

const paymentRequirementsV1Schema = z
  .object({
    scheme: z.literal("exact"),
    // The names are the configured registry's: the document fills in their enum (buildOpenApiDocument).
    network: z.string().describe("x402 v1 network name"),
    maxAmountRequired: z.string().regex(/^\d+$/).describe("Atomic USDC units"),
    resource: z.string(),
    description: z.string(),
    mimeType: z.string().optional(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().int(),
    asset: z.string(),
    extra: z.record(z.string(), z.unknown()).nullable().optional(),
    outputSchema: z
      .object({ input: z.record(z.string(), z.unknown()), output: z.record(z.string(), z.unknown()) })
      .optional()
      .describe("v1 bazaar discovery: the HTTP input with its body's fields, and an example answer"),
  })
  .loose();

export const paymentErrorSchema = errorObjectSchema
  .extend({
    code: z.literal("payment_required"),
    reason: z
      .string()
      .optional()
      .describe(
        "Why a payment sent was refused (absent when none was sent): malformed, requirements_mismatch, payment_expired (its blockhash or authorization lapsed: pay the new challenge), insufficient_balance, payment_invalid, or the settlement's reason (nothing was charged)",
      ),
    request_id: z.string().optional(),
    x402Version: z.literal(1).describe("x402 v1 clients read the body; v2 clients read the PAYMENT-REQUIRED header"),
    accepts: z
      .array(paymentRequirementsV1Schema)
      .min(1)
      .describe("The same requirement as the PAYMENT-REQUIRED header's, in x402 v1's form"),
  })
  .loose()
  .register(openApiComponents, {
    id: "PaymentError",
    description:
      "Every 402: payment_required. The x402 v2 challenge (PaymentRequired) is base64 JSON in PAYMENT-REQUIRED (and what paying needs of it in X-Payment-Required); the body is the x402 v1 challenge with the error object's fields beside it and no `error` key (x402 v1 reserves `error` for its own reason codes; the openai SDK reads such a body as the error itself)",
  });

export const receiptSchema = z
  .object({
    v: z.literal(2),
    agent_pubkey: z.string(),
    upstream: z.string(),
    model: z.string(),
    cost_usdc: z.number().nonnegative(),
    prompt_hash: z.string().regex(/^[0-9a-f]{64}$/),
    response_hash: z.string().regex(/^[0-9a-f]{64}$/),
    timestamp: z.number().int(),
    inference_id: z.union([z.string(), z.number()]),
    points_total: z.number().int(),
    payment: z
      .object({
        scheme: z.literal("x402"),
        amount_usdc: z.number(),
        tx_signature: z.string(),
        network: z.string(),
        pay_to: z.string(),
      })
      .optional(),
    service_signature: base58.describe("Ed25519 over the canonical JSON of every other field, base58"),
  })
  .register(openApiComponents, {
    id: "Receipt",
    description: "The signed receipt v2 (base64 JSON in X-Service-Receipt; the last event of a stream)",
  });

const usageSchema = z
  .object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() })
  .loose();

export const chatCompletionSchema = z
  .object({
    id: z.string().describe("chatcmpl-<the receipt's inference_id>"),
    object: z.literal("chat.completion"),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal("assistant"),
          content: z
            .string()
            .describe("The answer's text, which the receipt's response hash covers (\"\" beside tool calls)"),
          refusal: z.null(),
          annotations: z.array(z.unknown()).optional(),
          tool_calls: z
            .array(z.object({ id: z.string(), type: z.string() }).loose())
            .optional()
            .describe("A provider's tool calls, as it sent them"),
        }),
        logprobs: z.null(),
        finish_reason: z.string(),
      }),
    ),
    usage: usageSchema,
  })
  .register(openApiComponents, { id: "ChatCompletion" });

export const chatCompletionChunkSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion.chunk"),
    created: z.number().int(),
    model: z.string(),
    choices: z
      .array(
        z.object({
          index: z.number().int(),
          delta: z.object({
            role: z.literal("assistant").optional(),
            content: z
              .string()
              .nullable()
              .optional()
              .describe("A piece of the text; null beside the first tool-call fragment"),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int(),
                  id: z.string().optional(),
                  type: z.string().optional(),
                  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
                }),
              )
              .optional()
              .describe(
                "A provider's tool calls in fragments, merged by index: id, type and name first, then pieces of arguments",
              ),
          }),
          logprobs: z.null(),
          finish_reason: z.string().nullable(),
        }),
      )
      .describe("One choice; empty in the usage chunk that `stream_options.include_usage` asks for"),
    usage: usageSchema
      .nullable()
      .optional()
      .describe(
        "On the finish chunk; with `stream_options.include_usage`, on a last chunk with `choices: []` instead, and null on every other chunk",
      ),
  })
  .register(openApiComponents, { id: "ChatCompletionChunk", description: "One `data:` event of a stream" });

/** The x402 offer-receipt extension's signed receipt: a JWS over `{ version, network, resourceUrl, payer, issuedAt, transaction }`. */
const x402ReceiptSchema = z
  .object({
    format: z.literal("jws"),
    signature: z.string().describe("JWS compact serialization (EdDSA), `kid` = this service's did:web key"),
  })
  .register(openApiComponents, {
    id: "X402SignedReceipt",
    description:
      "The x402 offer-receipt extension's signed receipt (also in PAYMENT-RESPONSE's `extensions` of a plain answer)",
  });

const receiptEventSchema = z
  .object({
    object: z.literal("service.receipt"),
    receipt: receiptSchema,
    log_proof_url: z.string().describe("Where the receipt's inclusion proof in the public receipt log is served"),
    x402_receipt: x402ReceiptSchema.optional().describe("Paid route only: the payment's x402 signed receipt"),
  })
  .register(openApiComponents, {
    id: "ReceiptEvent",
    description: "The receipt a stream ends with, as the receipt chunk's `service_receipt`",
  });

export const receiptChunkSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion.chunk"),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(z.unknown()).max(0).describe("Always empty: the chunk adds nothing to the answer's text"),
    service_receipt: receiptEventSchema,
  })
  .register(openApiComponents, {
    id: "ReceiptChunk",
    description:
      "The stream's last event before `data: [DONE]`: a `chat.completion.chunk` with no choices, so OpenAI clients that validate every chunk accept it, carrying the receipt in `service_receipt`",
  });

export const streamErrorEventSchema = z
  .object({
    error: errorObjectSchema.describe(
      "OpenAI's error object, as in an error body, with Signet's stable code in `code`",
    ),
  })
  .register(openApiComponents, {
    id: "StreamErrorEvent",
    description: "Ends a stream whose upstream failed mid-way; the paid route's unserved rules apply",
  });

const responsesUsageSchema = z
  .object({
    input_tokens: z.number().int(),
    input_tokens_details: z.object({ cached_tokens: z.number().int() }).loose(),
    output_tokens: z.number().int(),
    output_tokens_details: z.object({ reasoning_tokens: z.number().int() }).loose(),
    total_tokens: z.number().int(),
  })
  .loose();

const outputTextSchema = z.object({
  type: z.literal("output_text"),
  text: z.string().describe('The answer\'s text (in a stream, the text so far: "" when the part is added)'),
  annotations: z.array(z.unknown()).max(0),
  logprobs: z.array(z.unknown()).max(0),
});

const outputMessageSchema = z.object({
  id: z.string().describe("msg_<the receipt's inference_id>"),
  type: z.literal("message"),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  role: z.literal("assistant"),
  content: z.array(outputTextSchema).max(1),
});

const outputFunctionCallSchema = z.object({
  id: z.string().describe("fc_<the receipt's inference_id>_<n>"),
  type: z.literal("function_call"),
  status: z.literal("completed"),
  call_id: z.string().describe("The id the tool's result names (`function_call_output.call_id`)"),
  name: z.string(),
  arguments: z.string().describe("The call's arguments, JSON text as the model wrote them"),
});

export const responsesObjectSchema = z
  .object({
    id: z.string().describe("resp_<the receipt's inference_id>"),
    object: z.literal("response"),
    created_at: z.number().int(),
    status: z
      .enum(["in_progress", "completed", "incomplete"])
      .describe(
        "`incomplete` (with `incomplete_details.reason` `max_output_tokens`) when the output cap cut the answer",
      ),
    incomplete_details: z.object({ reason: z.literal("max_output_tokens") }).nullable(),
    model: z.string(),
    output: z
      .array(z.union([outputMessageSchema, outputFunctionCallSchema]))
      .describe(
        "One assistant message with one output_text part, whose text the receipt's response hash covers (absent when the model only called functions), then a function_call item per call; empty while in progress",
      ),
    usage: responsesUsageSchema.nullable(),
    error: z.null(),
    instructions: z.string().nullable(),
    max_output_tokens: z.number().int().nullable(),
    store: z.literal(false),
    tools: z.array(z.unknown()).describe("The request's function tools"),
    service_receipt: z
      .lazy(() => receiptEventSchema)
      .optional()
      .describe("Only on a stream's `response.completed` (or `response.incomplete`) event: the call's receipt"),
  })
  .loose()
  .register(openApiComponents, {
    id: "ResponsesObject",
    description: "OpenAI's Responses object for one answer: its text and the function calls the model made",
  });

const eventBase = { sequence_number: z.number().int().describe("0, 1, 2, … in the order sent") };
const partAt = { item_id: z.string(), output_index: z.number().int(), content_index: z.literal(0) };

export const responsesStreamEventSchema = z
  .discriminatedUnion("type", [
    z.object({
      type: z.enum(["response.created", "response.in_progress"]),
      ...eventBase,
      response: responsesObjectSchema,
    }),
    z.object({
      type: z.enum(["response.output_item.added", "response.output_item.done"]),
      ...eventBase,
      output_index: z
        .number()
        .int()
        .describe(
          "The item's place: the message (from the model's first text) and each function call, in the order they began",
        ),
      item: z.union([
        outputMessageSchema,
        outputFunctionCallSchema.extend({ status: z.enum(["in_progress", "completed"]) }),
      ]),
    }),
    z.object({
      type: z.literal("response.function_call_arguments.delta"),
      ...eventBase,
      item_id: z.string(),
      output_index: z.number().int(),
      delta: z.string().describe("The next piece of the call's arguments"),
    }),
    z.object({
      type: z.literal("response.function_call_arguments.done"),
      ...eventBase,
      item_id: z.string(),
      output_index: z.number().int(),
      name: z.string(),
      arguments: z.string().describe("The call's whole arguments"),
    }),
    z.object({
      type: z.enum(["response.content_part.added", "response.content_part.done"]),
      ...eventBase,
      ...partAt,
      part: outputTextSchema,
    }),
    z.object({
      type: z.literal("response.output_text.delta"),
      ...eventBase,
      ...partAt,
      delta: z.string(),
      logprobs: z.array(z.unknown()).max(0),
    }),
    z.object({
      type: z.literal("response.output_text.done"),
      ...eventBase,
      ...partAt,
      text: z.string(),
      logprobs: z.array(z.unknown()).max(0),
    }),
    z.object({
      type: z.enum(["response.completed", "response.incomplete"]),
      ...eventBase,
      response: responsesObjectSchema.describe("The whole response, with the call's receipt in `service_receipt`"),
    }),
    z
      .object({ type: z.literal("error"), ...eventBase, code: z.string(), message: z.string(), param: z.null() })
      .loose()
      .describe("Ends a stream that failed after its first event; the paid route's unserved rules apply"),
  ])
  .register(openApiComponents, {
    id: "ResponsesStreamEvent",
    description: "One event of a Responses stream (`event: <type>` and `data: <this>`)",
  });

export const modelListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(
      z
        .object({
          id: z.string(),
          object: z.literal("model"),
          created: z.number().int(),
          owned_by: z.string(),
          description: z.string(),
          max_tokens: z.number().int(),
          networks: z
            .array(z.string())
            .describe(
              "The networks (as the request's `network` names them) this model is offered on, of those the service takes payment on now: an RPC configured, a mainnet while the operator's switch is on",
            ),
          pricing: z.object({
            per_call_usdc: usdcString,
            upstream_input_usdc_per_mtok: usdcString,
            upstream_output_usdc_per_mtok: usdcString,
          }),
        })
        .loose(),
    ),
  })
  .register(openApiComponents, { id: "ModelList" });

export const publicKeySchema = z
  .object({ pubkey: base58, algorithm: z.literal("ed25519"), encoding: z.literal("base58") })
  .register(openApiComponents, { id: "PublicKey" });

export const operatorKeySchema = z
  .object({
    pubkey: base58.describe("The key that signs receipts now"),
    algorithm: z.literal("ed25519"),
    encoding: z.literal("base58"),
    retired: z
      .array(
        z.object({
          pubkey: base58,
          retired_at: z
            .number()
            .int()
            .describe("Unix ms: a receipt this key signed verifies only when its `timestamp` is before it"),
        }),
      )
      .describe("The keys that signed receipts before a rotation"),
  })
  .register(openApiComponents, { id: "OperatorKey" });

export const creditsSchema = z
  .object({
    agent_pubkey: z.string(),
    network: z.string(),
    balance_usdc: usdcString,
    entries: z.array(
      z.object({
        id: z.string(),
        kind: z.string(),
        amount_usdc: z.string(),
        payment_id: z.string().nullable(),
        inference_id: z.string().nullable(),
        created_at: z.string(),
      }),
    ),
  })
  .register(openApiComponents, { id: "Credits" });

export const topUpResultSchema = z
  .object({
    object: z.literal("credit.topup"),
    agent_pubkey: z.string(),
    payer: z.string(),
    network: z.string(),
    amount_usdc: usdcString,
    balance_usdc: usdcString
      .optional()
      .describe(
        "The credited agent's balance when the top-up was first answered; a replay gives the same figure, and has none when that answer is no longer kept",
      ),
    tx_signature: z.string(),
  })
  .register(openApiComponents, { id: "TopUp" });

export const grantChallengeSchema = z
  .object({ challenge: z.string(), nonce: z.string(), expires_at: z.string(), amount_usdc: usdcString })
  .register(openApiComponents, {
    id: "GrantChallenge",
    description: "The text to sign with the wallet (signMessage), and its terms",
  });

export const grantResultSchema = z
  .object({ granted_usdc: usdcString, balance_usdc: usdcString, network: z.string() })
  .register(openApiComponents, { id: "Grant" });

export const discoverySchema = z
  .object({
    version: z.literal(1).describe("The crawlers' discovery format (x402scan, agentcash): `resources`, `instructions`"),
    resources: z.array(z.string()).describe("Every paid resource's URL (its details are in `paid_resources`)"),
    instructions: z.string().describe("How an agent uses the service, in a few lines"),
    ownershipProofs: z
      .array(z.string())
      .describe("Signatures of this origin by a payee's key (EIP-191 by the EVM payee), as x402scan checks them"),
    x402Version: z.literal(2),
    service: z.object({
      name: z.string(),
      tags: z.array(z.string()).describe("How catalogues file the service"),
      url: z.string(),
      openapi: z.string(),
      docs: z.string(),
    }),
    operator_key_url: z.string(),
    did: z.object({
      id: z.string().describe("did:web of SERVICE_BASE_URL's host"),
      document: z.string().describe("The DID document's URL"),
    }),
    verifier: z.object({ url: z.string(), key_url: z.string() }),
    receipt_log: z
      .object({
        origin: z.string(),
        verifier_key: z.string(),
        prefix: z.string(),
        checkpoint: z.string(),
        key_url: z.string(),
      })
      .describe("The public receipt log (C2SP tlog-tiles under `prefix`)"),
    paid_resources: z.array(
      z.object({
        resource: z.string(),
        method: z.string(),
        description: z.string(),
        mimeType: z.string(),
        accepts: z.array(paymentRequirementsSchema.extend({ feePayer: z.string().optional() }).loose()),
        extensions: z
          .record(z.string(), z.unknown())
          .describe("The resource's x402 extensions as its 402 declares them: `bazaar`, `payment-identifier`"),
      }),
    ),
    mcp: z
      .object({
        url: z.string(),
        transport: z.literal("streamable-http"),
        paid_tools: z.array(z.string()),
        free_tools: z.array(z.string()),
        payment: z.object({
          transport: z.string(),
          payment_meta: z.string(),
          payment_response_meta: z.string(),
          receipt_meta: z.string(),
          prepaid_meta: z.string(),
        }),
      })
      .describe("The remote MCP server: its paid tools are the paid routes' calls, paid with x402's MCP transport"),
    prepaid: z.object({
      topup: z.string(),
      inference: z.string(),
      chat: z.string().describe("Also takes signed requests, served from credit"),
      responses: z.string().describe("Also takes signed requests, served from credit"),
      embeddings: z.string().describe("Also takes signed requests, served from credit"),
      grant_challenge: z.string(),
      grants: z.string(),
    }),
    networks: z.array(
      z.object({
        network: z.string(),
        name: z.string(),
        asset: z.string(),
        rpc: z
          .string()
          .nullable()
          .describe("The RPC this service uses; null unless the operator publishes it (EXPLORER_ADVERTISE_RPC)"),
        enabled: z.boolean(),
      }),
    ),
  })
  .register(openApiComponents, { id: "X402Discovery" });

export const didDocumentSchema = z
  .object({
    "@context": z.array(
      z.union([z.string(), z.object({ revoked: z.object({ "@id": z.string(), "@type": z.string() }) })]),
    ),
    id: z.string(),
    verificationMethod: z.array(
      z.object({
        id: z.string(),
        type: z.literal("JsonWebKey2020"),
        controller: z.string(),
        publicKeyJwk: z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string() }),
        revoked: z
          .string()
          .optional()
          .describe("A retired key's retirement (ISO 8601): it proves only what it signed before"),
      }),
    ),
    assertionMethod: z.array(z.string()),
  })
  .register(openApiComponents, {
    id: "DidDocument",
    description:
      "did:web document binding the operator key (it signs receipts, and the x402 offers and receipts) to this domain",
  });

export const receiptLogProofSchema = z
  .object({
    log_index: z.number().int().nonnegative(),
    tree_size: z.number().int().positive(),
    inclusion_proof: z.array(z.string()).describe("RFC 6962 audit path, leaf side first, base64 hashes"),
    checkpoint: z
      .string()
      .describe("The signed checkpoint (C2SP tlog-checkpoint note) of tree_size, with any witness cosignatures"),
    log_key: z.string().optional().describe("The log's verifier key (for convenience: pin your own)"),
  })
  .register(openApiComponents, {
    id: "ReceiptLogProof",
    description: "A receipt's inclusion proof in the public receipt log",
  });

export const logKeySchema = z
  .object({
    origin: z.string(),
    verifier_key: z.string(),
    previous_verifier_key: z
      .string()
      .nullable()
      .describe("During a log key rotation, the old key: it co-signs every checkpoint until the rotation ends"),
    algorithm: z.literal("ed25519"),
    witnesses: z.array(z.string()),
    checkpoint_url: z.string(),
  })
  .register(openApiComponents, {
    id: "LogKey",
    description:
      "The receipt log's origin and verifier key (`<name>+<key id>+<base64>`), distinct from the operator key",
  });
