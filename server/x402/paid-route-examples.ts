// An example call and answer of each paid route, for its bazaar declaration (the 402s and /.well-known/x402).
import "server-only";
import type { PaidRoute } from "../http/paid-route-paths";
import { SHIPPED_NETWORKS } from "../verify";

/** Example calls and answers; a unit test parses each with its route's zod schema. */
export const PAID_ROUTE_EXAMPLES = {
  chat: {
    input: { model: "local/echo-1", messages: [{ role: "user", content: "Say hello" }], network: "devnet" },
    output: {
      id: "chatcmpl-0b7f3c2e-5d1a-4c8e-9f6b-2a4d8e1c7b35",
      object: "chat.completion",
      created: 1_764_000_000,
      model: "local/echo-1",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: 'You said: "Say hello"', refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
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
      usage: {
        input_tokens: 3,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 8,
      },
      error: null,
      instructions: null,
      max_output_tokens: null,
      store: false,
      tools: [],
    },
  },
  embeddings: {
    input: { model: "local/hash-embed-1", input: ["Say hello"], dimensions: 4, network: "devnet" },
    output: {
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.5, -0.5, 0.5, -0.5] }],
      model: "local/hash-embed-1",
      usage: { prompt_tokens: 3, total_tokens: 3 },
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
} as const satisfies Record<PaidRoute, { input: Record<string, unknown>; output: Record<string, unknown> }>;
