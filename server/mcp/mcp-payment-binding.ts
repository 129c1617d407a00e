// x402's MCP transport, as the service speaks it. A paid tool's payment travels in the request's
// `params._meta["x402/payment"]` (an x402 PaymentPayload) and its settlement in the result's
// `_meta["x402/payment-response"]`. A call that needs payment is answered in one of two bindings: the extension binding
// (`resultType: "payment_required"` with `paymentRequired`) when the request advertises `org.x402/payment` in its
// per-request client capabilities, else the tool-result binding (`isError: true`, the PaymentRequired in
// `structuredContent` and, as JSON, in `content[0].text`). The signed receipt is in `_meta["org.signet/receipt"]`.
// Pure: which binding, and what each result is, from the request's `_meta`.

/** The MCP endpoint's path on the service's origin. */
export const MCP_PATH = "/mcp";

/** The remote server's tools: the paid ones (each an HTTP route's call) and the free ones. */
export const MCP_TOOLS = {
  paid: ["chat", "respond"],
  free: ["models", "verify_receipt", "log_inclusion", "operator_key"],
} as const;

/** The remote MCP server as discovery describes it. */
export function mcpDiscovery(baseUrl: string) {
  return {
    url: `${baseUrl}${MCP_PATH}`,
    transport: "streamable-http",
    paid_tools: [...MCP_TOOLS.paid],
    free_tools: [...MCP_TOOLS.free],
    payment: {
      transport: "x402 MCP (tool-result binding; the org.x402/payment extension binding when a request advertises it)",
      payment_meta: MCP_META.payment,
      payment_response_meta: MCP_META.paymentResponse,
      receipt_meta: MCP_META.receipt,
      prepaid_meta: MCP_META.prepaid,
    },
  };
}

/** The `_meta` keys of x402's MCP transport and of Signet's own. */
export const MCP_META = {
  /** The request's payment: an x402 PaymentPayload. */
  payment: "x402/payment",
  /** The result's settlement: an x402 SettlementResponse. */
  paymentResponse: "x402/payment-response",
  /** The result's signed receipt (the same JSON as the HTTP routes' X-Service-Receipt). */
  receipt: "org.signet/receipt",
  /** A prepaid call's authorization: `{ pubkey, signature }` over the tool call (see mcp-prepaid-signing.ts). */
  prepaid: "org.signet/prepaid",
  /** The per-request MCP protocol version and client capabilities (MCP 2026-07-28). */
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
} as const;

/** The extension a client advertises to be answered `payment_required` rather than with an error result. */
export const X402_MCP_EXTENSION = "org.x402/payment";

/** The first MCP revision whose results carry `resultType`. */
const RESULT_TYPE_REVISION = "2026-07-28";

export type PaymentBinding = "extension" | "tool-result";

/** The `_meta` of a request, as far as the bindings read it. */
export type RequestMeta = Record<string, unknown> | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The extension binding when the request advertises `org.x402/payment`; the tool-result binding otherwise. */
export function paymentBindingOf(meta: RequestMeta): PaymentBinding {
  const capabilities = meta?.[MCP_META.clientCapabilities];
  const extensions = isRecord(capabilities) ? capabilities.extensions : undefined;
  return isRecord(extensions) && isRecord(extensions[X402_MCP_EXTENSION]) ? "extension" : "tool-result";
}

/**
 * Whether the request's results carry `resultType`: on MCP 2026-07-28 and later (its per-request protocol version, in
 * `YYYY-MM-DD` form, compares as text), and whenever the extension binding is in use.
 */
export function carriesResultType(meta: RequestMeta): boolean {
  const version = meta?.[MCP_META.protocolVersion];
  if (typeof version === "string" && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= RESULT_TYPE_REVISION)
    return true;
  return paymentBindingOf(meta) === "extension";
}

/** A tool result as MCP carries it (the fields the service sets). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The answer to a paid call that needs (another) payment: `paymentRequired` in the request's binding. */
export function paymentRequiredResult(meta: RequestMeta, paymentRequired: Record<string, unknown>): ToolResult {
  if (paymentBindingOf(meta) === "extension") {
    return { resultType: "payment_required", paymentRequired, content: [] };
  }
  return complete(meta, {
    isError: true,
    structuredContent: paymentRequired,
    content: [{ type: "text", text: JSON.stringify(paymentRequired) }],
  });
}

/** `result` as a completed result of the request's revision (`resultType: "complete"` where results carry it). */
export function complete(meta: RequestMeta, result: ToolResult): ToolResult {
  return carriesResultType(meta) ? { resultType: "complete", ...result } : result;
}

/**
 * A refusal that is not about payment (bad arguments, a replayed payment with another request, a disabled network):
 * an error result the model can read, its stable code and details in `structuredContent.error`.
 */
export function refusalResult(meta: RequestMeta, error: { code: string; message: string } & Record<string, unknown>) {
  return complete(meta, {
    isError: true,
    structuredContent: { error },
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
  });
}
