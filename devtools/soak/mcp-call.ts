// One tool call on an instance's remote MCP server, with the MCP SDK's own client over streamable HTTP, read the way the
// soak reads an HTTP answer: a served call is a 200 (with its settlement and receipt from `_meta`), a payment-required
// result a 402 (its PaymentRequired kept to pay), any other refusal the HTTP status of its stable code. A connection
// that fails is a cut (status 0).
import "server-only";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { PaymentRequired } from "@x402/core/types";
import { ERROR_STATUS, type ErrorCode } from "../../server/errors";
import { MCP_META } from "../../server/mcp/mcp-payment-binding";

export interface McpAnswer {
  status: number;
  error: string | null;
  reason: string | null;
  retryAfterMs: number | null;
  transaction: string | null;
  inferenceId: string | null;
  replayed: boolean;
  /** A payment-required result's PaymentRequired. */
  paymentRequired: PaymentRequired | null;
}

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

const CUT: McpAnswer = {
  status: 0,
  error: null,
  reason: null,
  retryAfterMs: null,
  transaction: null,
  inferenceId: null,
  replayed: false,
  paymentRequired: null,
};

/** Calls `name` with `args` (and `_meta`) on `origin`'s /mcp; never throws. */
export async function callMcpTool(
  origin: string,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  timeoutMs: number,
): Promise<McpAnswer> {
  const client = new Client({ name: "signet-soak", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
    const result = (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, {
      timeout: timeoutMs,
    })) as ToolResult;
    return readToolResult(result);
  } catch {
    return CUT;
  } finally {
    await client.close().catch(() => undefined);
  }
}

function readToolResult(result: ToolResult): McpAnswer {
  const structured = result.structuredContent ?? {};
  if (!result.isError) {
    const settlement = result._meta?.[MCP_META.paymentResponse] as { transaction?: string } | undefined;
    const receipt = result._meta?.[MCP_META.receipt] as { inference_id?: unknown } | undefined;
    return {
      ...CUT,
      status: 200,
      transaction: settlement?.transaction ?? null,
      inferenceId: receipt?.inference_id === undefined ? null : String(receipt.inference_id),
      replayed: result._meta?.["org.signet/replayed"] === true,
    };
  }
  if (typeof structured.x402Version === "number") {
    const reason = typeof structured.error === "string" ? structured.error : null;
    return {
      ...CUT,
      status: 402,
      error: "payment_required",
      reason,
      paymentRequired: structured as unknown as PaymentRequired,
    };
  }
  const error = (structured.error ?? {}) as { code?: string; retry_after?: number; transaction?: string };
  const code = error.code ?? "unknown";
  return {
    ...CUT,
    status: ERROR_STATUS[code as ErrorCode] ?? 400,
    error: code,
    retryAfterMs: typeof error.retry_after === "number" ? error.retry_after * 1_000 : null,
    transaction: code === "settlement_pending" && typeof error.transaction === "string" ? error.transaction : null,
  };
}
