// The remote MCP server at /mcp: streamable HTTP, stateless (a server and transport per request, so any instance
// behind a load balancer answers any request; no session to lose). Paid tools `chat` and `respond` are the chat and
// Responses routes, paid per call with x402's MCP transport or spent from prepaid credit (paid-tool-call.ts); free
// tools list the models, verify a receipt (the hosted verifier's five checks and its signed verdict), prove a receipt's
// inclusion in the public log, and give the operator key. Every refusal is a tool result with its stable code, or
// MCP's own error for a malformed request; never a stack trace.
import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import type { AppContext } from "../context/app-context";
import { AppError, errorObjectOf, toErrorBody } from "../errors";
import { issueVerdict } from "../hosted-verify/issue-verdict";
import { decodeBodyText } from "../http/read-json-body";
import { operatorKeyResource } from "../keys/operator-key-resource";
import { MAX_CHAT_BODY_BYTES } from "../schemas/chat-request-schema";
import { signedFieldsSchema } from "../schemas/signed-fields-schema";
import { verifyRequestSchema } from "../schemas/verify-request-schema";
import { proveReceiptInclusion } from "../transparency/read-log";
import { listModels } from "../upstream/list-models";
import { payableNetworks } from "../x402/payable-networks";
import { complete, refusalResult, X402_MCP_EXTENSION, type RequestMeta, type ToolResult } from "./mcp-payment-binding";
import { callPaidTool } from "./paid-tool-call";
import { clientHeaders } from "./client-headers";

/** The largest MCP request body: the largest paid route's body, with room for the JSON-RPC envelope and a payment. */
export const MAX_MCP_BODY_BYTES = MAX_CHAT_BODY_BYTES + 64_000;

const SERVER_INFO = { name: "signet", title: "Signet: pay-per-call signed inference", version: "1.0.0" };

const INSTRUCTIONS = [
  "Signet answers chat and Responses calls from hosted models, each paid per call in USDC with x402 (on Solana or Base) or from prepaid credit, and each answer carries an Ed25519-signed receipt anyone can verify.",
  'Call `chat` or `respond` without a payment to get the price: the result is x402\'s PaymentRequired. Pay it by sending the same call again with an x402 PaymentPayload in `_meta["x402/payment"]`; the settlement comes back in `_meta["x402/payment-response"]` and the signed receipt in `_meta["org.signet/receipt"]`.',
  "`models`, `verify_receipt`, `log_inclusion` and `operator_key` are free.",
].join("\n\n");

/** The arguments a prepaid call adds, and signs with the rest (see mcp-prepaid.ts). */
const prepaidArguments = {
  nonce: signedFieldsSchema.shape.nonce
    .optional()
    .describe("Prepaid calls only: a fresh random string (16 to 64 of A-Z a-z 0-9 _ -), used once per agent key"),
  timestamp: signedFieldsSchema.shape.timestamp
    .optional()
    .describe(
      "Prepaid calls only: the time of signing, in milliseconds since the epoch (within 60 s of the service's clock)",
    ),
  max_cost_usdc: signedFieldsSchema.shape.max_cost_usdc.describe(
    "Prepaid calls only: the most this call may take from credit, in USDC (e.g. 0.01)",
  ),
};

const network = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe(
    "The network to pay on (e.g. solana-devnet, base-sepolia, or a CAIP-2 id); the service's default when absent",
  );

const chatArguments = {
  messages: z
    .array(
      z.object({
        role: z.enum(["system", "developer", "user", "assistant"]).describe("Who said it"),
        content: z.string().describe("The message's text"),
      }),
    )
    .min(1)
    .max(500)
    .describe("The conversation so far; the model answers the last message"),
  max_tokens: z.number().int().min(1).max(1_000_000).optional().describe("The most tokens the answer may have"),
  temperature: z.number().min(0).max(2).optional().describe("Sampling temperature, 0 to 2"),
  network,
  ...prepaidArguments,
};

const respondArguments = {
  input: z
    .union([z.string().min(1), z.array(z.record(z.string(), z.unknown())).min(1).max(500)])
    .describe(
      "The Responses API's input: a text, or a list of input items (messages, function calls and their outputs)",
    ),
  instructions: z.string().optional().describe("A system message put before the input"),
  max_output_tokens: z.number().int().min(1).max(1_000_000).optional().describe("The most tokens the answer may have"),
  network,
  ...prepaidArguments,
};

/** The MCP server for one request from `client` (its address headers). `meta` of each call is its request's `_meta`. */
function buildServer(ctx: AppContext, client: Headers): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, extensions: { [X402_MCP_EXTENSION]: {} } },
    instructions: INSTRUCTIONS,
  });
  const modelIds = ctx.upstream.models().map((m) => m.id) as [string, ...string[]];
  const model = z.enum(modelIds).describe("The model to call; the models tool lists each with its networks and price");
  const price = "Paid per call with x402 (the result of an unpaid call is the price to pay), or from prepaid credit.";

  server.registerTool(
    "chat",
    {
      title: "Chat completion (paid)",
      description: `Asks a hosted model to answer a conversation and returns its answer with an Ed25519-signed receipt. ${price}`,
      inputSchema: { model, ...chatArguments },
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => callPaidTool(ctx, "chat", args, extra._meta as RequestMeta, client),
  );
  server.registerTool(
    "respond",
    {
      title: "Responses API call (paid)",
      description: `OpenAI's Responses API: one stateless answer to \`input\`, with an Ed25519-signed receipt. ${price}`,
      inputSchema: { model, ...respondArguments },
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => callPaidTool(ctx, "respond", args, extra._meta as RequestMeta, client),
  );
  server.registerTool(
    "models",
    {
      title: "Models and prices (free)",
      description: "Lists the models this service offers, with the per-call price and the networks each is offered on.",
      inputSchema: {},
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (_args, extra) =>
      free(ctx, extra._meta as RequestMeta, async () => {
        const settings = await ctx.settings.read();
        return listModels(ctx.upstream, settings, payableNetworks(ctx.config.networks, ctx.gateway, settings));
      }),
  );
  server.registerTool(
    "verify_receipt",
    {
      title: "Verify a receipt (free)",
      description:
        "Checks a Signet receipt against the prompt and the answer it covers: the prompt hash, the response hash, the operator's signature, the payment on chain and its payer. Returns each check and the verifier's signed verdict.",
      inputSchema: verifyRequestSchema.shape,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    (args, extra) => free(ctx, extra._meta as RequestMeta, () => issueVerdict(ctx, args)),
  );
  server.registerTool(
    "log_inclusion",
    {
      title: "Receipt log inclusion proof (free)",
      description:
        "Proves that a receipt is in the service's public, append-only receipt log: its leaf, an inclusion proof and the signed checkpoint it is proved against.",
      inputSchema: {
        inference_id: z.uuid().describe("The receipt's inference_id"),
        tree_size: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Prove against this size of the log (default: the latest)"),
        cosigned: z.boolean().optional().describe("Only against a checkpoint the witnesses cosigned"),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      free(ctx, extra._meta as RequestMeta, () =>
        proveReceiptInclusion(ctx.db, ctx.keys.log(), args.inference_id.toLowerCase(), {
          treeSize: args.tree_size,
          cosigned: args.cosigned === true,
        }),
      ),
  );
  server.registerTool(
    "operator_key",
    {
      title: "Operator key (free)",
      description: "The Ed25519 public key that signs this service's receipts, and the keys it retired.",
      inputSchema: {},
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (_args, extra) => free(ctx, extra._meta as RequestMeta, async () => operatorKeyResource(ctx)),
  );
  return server;
}

/** A free tool's answer as JSON text and structured content; its refusal as a tool error with the stable code. */
async function free(ctx: AppContext, meta: RequestMeta, run: () => Promise<object>): Promise<ToolResult> {
  try {
    const value = (await run()) as Record<string, unknown>;
    return complete(meta, { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });
  } catch (err) {
    return refusalResult(meta, errorObjectOf(toErrorBody(err, ctx.log).body));
  }
}

/** A JSON-RPC error response for a request the MCP server never reads (not JSON, too large). */
function jsonRpcError(status: number, code: number, message: string, data?: Record<string, unknown>): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message, ...(data ? { data } : {}) } }, { status });
}

/** Serves one MCP request (streamable HTTP POST) whose body is `rawBody`. */
export async function serveMcp(ctx: AppContext, req: Request, rawBody: Uint8Array): Promise<Response> {
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(decodeBodyText(rawBody));
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the body is not JSON");
  }
  const server = buildServer(ctx, clientHeaders(req.headers));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(req, { parsedBody });
  } finally {
    await server.close();
  }
}

/** The JSON-RPC refusal of a body the route would not read (too large): MCP's shape, the stable code in `data`. */
export function mcpRefusal(err: AppError): Response {
  return jsonRpcError(err.status, -32600, err.message, { code: err.code });
}
