// What a signed (prepaid) request adds to the body of a route that also takes x402 payments: the replay fields the
// prepaid admission checks (`nonce`, `timestamp`) and an optional hard cap on the call's cost.
import "server-only";
import { z } from "zod";

export const signedFieldsSchema = z
  .object({
    nonce: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, { message: "must be 16 to 64 characters from [A-Za-z0-9_-]" }),
    timestamp: z.number().int().positive(),
    max_cost_usdc: z.number().positive().max(1_000).optional(),
  })
  .loose();

export type SignedFields = z.infer<typeof signedFieldsSchema>;
