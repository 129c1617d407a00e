// The hosted verifier's wire shapes: VerifyRequest in, VerifyResponse out. zod schemas are the
// single source for validation (and, later, the OpenAPI document).
import "server-only";
import { z } from "zod";
import { MAX_EMBEDDING_INPUT_TOKENS, MAX_EMBEDDING_INPUTS } from "./embeddings-request-schema";
import { isBase58PublicKey } from "../verify";

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048);

const chatMessage = z.object({ role: z.string().max(64), content: z.unknown() }).loose();

/** An embeddings call's `input` on its own, as the route takes it: texts, one list of token ids, or lists of them. */
const embeddingsInput = z.union([
  z.array(z.string()).min(1).max(MAX_EMBEDDING_INPUTS),
  z.array(z.number()).min(1).max(MAX_EMBEDDING_INPUT_TOKENS),
  z.array(z.array(z.number()).min(1).max(MAX_EMBEDDING_INPUT_TOKENS)).min(1).max(MAX_EMBEDDING_INPUTS),
]);

export const verifyRequestSchema = z.object({
  receipt: z.object({ v: z.number().int().positive({ message: "receipt.v must be a positive integer" }) }).loose(),
  prompt: z.union([
    z.array(chatMessage).max(1000),
    embeddingsInput,
    z.object({ messages: z.array(chatMessage).max(1000) }).loose(),
    z.object({ prompt: z.string() }).loose(),
    /**
     * A Responses API request body (hashed as the messages its instructions and input map to), or an embeddings one
     * (hashed as its inputs): a list as long as the embeddings route's longest `input`, a token-id list.
     */
    z.object({ input: z.union([z.string(), z.array(z.unknown()).max(MAX_EMBEDDING_INPUT_TOKENS)]) }).loose(),
    z.string(),
  ]),
  response: z.union([z.object({}).loose(), z.array(z.unknown()).max(100_000), z.string()]),
  endpoint: httpUrl.optional(),
  operatorKey: z
    .string()
    .refine(isBase58PublicKey, { message: "must be a base58 32-byte Ed25519 public key" })
    .optional(),
  rpc: httpUrl.optional(),
});

export type VerifyRequest = z.infer<typeof verifyRequestSchema>;

const verifyChecksSchema = z.object({
  prompt_hash_ok: z.boolean(),
  response_hash_ok: z.boolean(),
  service_signature_ok: z.boolean(),
  payment_on_chain_ok: z.boolean(),
  payer_matches: z.boolean(),
});

export const verifyResponseSchema = z.object({
  v: z.literal(1),
  ok: z.boolean(),
  checks: verifyChecksSchema,
  receipt_signature: z.string().nullable(),
  verified_at: z.number().int(),
  verifier_pubkey: z.string(),
  operator_pubkey: z
    .string()
    .describe(
      "The key the receipt was checked against: whoever relies on a verdict must check it is the operator they expect",
    ),
  network: z
    .string()
    .nullable()
    .describe("The CAIP-2 network the receipt's payment was checked on; null for a receipt with no payment"),
  rpc: z
    .enum(["service", "caller"])
    .describe("Whose chain RPC answered: the caller's own `rpc` (it can answer anything) or one this service chose"),
  verifier_signature: z.string(),
});

export type VerifyResponse = z.infer<typeof verifyResponseSchema>;
