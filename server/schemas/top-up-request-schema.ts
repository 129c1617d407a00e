// The top-up route's request body: `{ amount_usdc, network?, agent_pubkey? }`. Its own module so the OpenAPI document
// and the x402 discovery metadata can take the schema without importing the money path.
import "server-only";
import { z } from "zod";
import { isBase58PublicKey } from "../verify";

export const topUpRequestSchema = z
  .object({
    amount_usdc: z.union([z.number().positive(), z.string().regex(/^\d+(\.\d{1,6})?$/)]),
    network: z.string().min(1).max(64).optional(),
    agent_pubkey: z.string().refine(isBase58PublicKey, { message: "must be a base58 Ed25519 public key" }).optional(),
  })
  .strict();

export type TopUpRequest = z.infer<typeof topUpRequestSchema>;
