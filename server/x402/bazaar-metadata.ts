// Discovery metadata for the x402 `bazaar` extension (@x402/extensions): how to call each paid resource (its JSON
// body's schema and an example) and what it answers (schema and example), declared in its 402s and listed by
// /.well-known/x402. The schemas are the zod schemas the route validates with and the OpenAPI document publishes,
// converted the same way, so the catalogue cannot drift from the API. The chat body's is its core fields only: the 402
// carries the declaration in a header, whose size clients bound; the OpenAPI document has every field. Built once per
// process.
import "server-only";
import { z } from "zod";
import { declareDiscoveryExtension, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { chatRequestFields } from "../chat/chat-request-schema";
import { chatCompletionSchema, responsesObjectSchema, topUpResultSchema } from "../openapi/response-schemas";
import { topUpRequestSchema } from "../prepaid/top-up-request-schema";
import { responsesRequestFields } from "../responses/responses-request-schema";
import type { PaidResource } from "./paid-resources";
import { SHIPPED_NETWORKS } from "../verify";

/** A zod schema as the OpenAPI document converts it, inline and without the dialect (it becomes a subschema). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/** Example calls and answers; a unit test parses each with its route's zod schema. */
export const BAZAAR_EXAMPLES = {
  chat: {
    input: { model: "local/echo-1", messages: [{ role: "user", content: "Say hello" }], network: "devnet" },
    output: {
      id: "chatcmpl-0b7f3c2e-5d1a-4c8e-9f6b-2a4d8e1c7b35",
      object: "chat.completion",
      created: 1_764_000_000,
      model: "local/echo-1",
      choices: [{ index: 0, message: { role: "assistant", content: 'You said: "Say hello"', refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    },
  },
  responses: {
    input: { model: "local/echo-1", input: "Say hello", network: "devnet" },
    output: {
      id: "resp_0b7f3c2e-5d1a-4c8e-9f6b-2a4d8e1c7b35",
      object: "response",
      created_at: 1_764_000_000,
      status: "completed",
      incomplete_details: null,
      model: "local/echo-1",
      output: [
        {
          id: "msg_0b7f3c2e-5d1a-4c8e-9f6b-2a4d8e1c7b35",
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: 'You said: "Say hello"', annotations: [], logprobs: [] }],
        },
      ],
      usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 8 },
      error: null,
      instructions: null,
      max_output_tokens: null,
      store: false,
      tools: [],
    },
  },
  topup: {
    input: { amount_usdc: "1.00", network: "devnet" },
    output: {
      object: "credit.topup",
      agent_pubkey: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
      payer: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
      network: SHIPPED_NETWORKS.get("solana-devnet").caip2,
      amount_usdc: "1.00",
      balance_usdc: "1.00",
      tx_signature: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
    },
  },
} as const satisfies Record<PaidResource, { input: Record<string, unknown>; output: Record<string, unknown> }>;

/** The chat body's core fields, as the route validates them; the route takes every other OpenAI field too. */
export const chatDiscoverySchema = chatRequestFields.pick({ model: true, messages: true, network: true, max_tokens: true, temperature: true, stream: true }).loose();

/** The Responses body's core fields, as the route validates them (each input item is checked further). */
const responsesDiscoverySchema = responsesRequestFields.pick({ model: true, input: true, instructions: true, network: true, max_output_tokens: true, stream: true }).loose();

/** The plain answer: the Responses object without `service_receipt`, which only a stream's last event carries. */
export const responsesAnswerSchema = responsesObjectSchema.omit({ service_receipt: true });

const SCHEMAS = {
  chat: { input: chatDiscoverySchema, output: chatCompletionSchema },
  responses: { input: responsesDiscoverySchema, output: responsesAnswerSchema },
  topup: { input: topUpRequestSchema, output: topUpResultSchema },
} satisfies Record<PaidResource, { input: z.ZodType; output: z.ZodType }>;

const declared = new Map<PaidResource, DiscoveryExtension>();

/**
 * The resource's bazaar declaration (`info` + `schema`), before the resource server adds the HTTP method. Each call
 * returns the same object: treat it as read-only.
 */
export function bazaarDeclaration(resource: PaidResource): DiscoveryExtension {
  let extension = declared.get(resource);
  if (!extension) {
    const { input, output } = SCHEMAS[resource];
    extension = declareDiscoveryExtension({
      bodyType: "json",
      input: BAZAAR_EXAMPLES[resource].input,
      inputSchema: jsonSchemaOf(input),
      output: { example: BAZAAR_EXAMPLES[resource].output, schema: jsonSchemaOf(output) },
    }).bazaar!;
    declared.set(resource, extension);
  }
  return extension;
}
