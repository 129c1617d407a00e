// A paid MCP tool call: the tool's arguments are the body of its HTTP route (chat → /api/v1/chat/completions,
// respond → /api/v1/responses), served by that route's own code. A payment in `_meta["x402/payment"]` goes where the
// route reads one (PAYMENT-SIGNATURE for x402 v2, X-PAYMENT for v1), so it is admitted, bound to the request, settled,
// held, served and captured exactly as over HTTP, behind the same kill switch, allowlist and network gate; a replayed
// payment gets the stored answer for the same arguments and a refusal for others. A prepaid authorization in
// `_meta["org.signet/prepaid"]` spends credit by the prepaid route's own path, its signature naming /mcp.
import "server-only";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { serveChat } from "../chat/serve-chat";
import { prepaidChat } from "../chat/serve-prepaid-chat";
import type { AppContext } from "../context/app-context";
import { AppError, errorObjectOf, toErrorBody } from "../errors";
import { parseWith } from "../http/parse-with";
import type { ServedCall } from "../pipeline/call-types";
import { servePrepaidInference } from "../prepaid/serve-prepaid-inference";
import { asResponsesAnswer } from "../responses/responses-answer";
import { chatRequestOf } from "../responses/chat-request-of";
import { serveResponses } from "../responses/serve-responses";
import { chatRequestSchema } from "../schemas/chat-request-schema";
import { responsesRequestSchema, type ResponsesRequest } from "../schemas/responses-request-schema";
import { signedFieldsSchema } from "../schemas/signed-fields-schema";
import { paidRoute } from "../x402/paid-routes";
import { parseReceiptText } from "../verify";
import {
  complete,
  MCP_META,
  MCP_PATH,
  paymentRequiredResult,
  refusalResult,
  type RequestMeta,
  type ToolResult,
} from "./mcp-payment-binding";
import { mcpToolCallBytes } from "./mcp-prepaid";
import { chatAnswerText, responsesAnswerText } from "./answer-text";

/** The paid tools and the HTTP route each one is. */
const PAID_TOOL_ROUTES = { chat: "chat", respond: "responses" } as const;
export type PaidTool = keyof typeof PAID_TOOL_ROUTES;

/** The arguments only a prepaid call signs: never part of the route's body. */
const SIGNED_ARGUMENTS = ["nonce", "timestamp", "max_cost_usdc"] as const;

/** Serves one paid tool call; every outcome is a tool result (never a JSON-RPC error). */
export async function callPaidTool(
  ctx: AppContext,
  tool: PaidTool,
  args: Record<string, unknown>,
  meta: RequestMeta,
  client: Headers,
): Promise<ToolResult> {
  try {
    const served =
      meta?.[MCP_META.prepaid] !== undefined
        ? await servePrepaid(ctx, tool, args, meta, client)
        : await servePaid(ctx, tool, args, meta, client);
    return answered(ctx, tool, served, meta);
  } catch (err) {
    return refused(ctx, err, meta);
  }
}

function servePaid(ctx: AppContext, tool: PaidTool, args: Record<string, unknown>, meta: RequestMeta, client: Headers) {
  const route = PAID_TOOL_ROUTES[tool];
  const body: Record<string, unknown> = { ...args };
  for (const name of SIGNED_ARGUMENTS) delete body[name];
  const input = {
    headers: withHeaders(client, paymentHeaders(meta?.[MCP_META.payment])),
    rawBody: new TextEncoder().encode(JSON.stringify(body)),
    resourceUrl: `${ctx.config.baseUrl}${paidRoute(route).path}`,
  };
  return route === "chat" ? serveChat(ctx, input) : serveResponses(ctx, input);
}

function withHeaders(base: Headers, more: Record<string, string>): Headers {
  const out = new Headers(base);
  for (const [name, value] of Object.entries(more)) out.set(name, value);
  return out;
}

/** The header the HTTP route reads `payment` from; none without one, a malformed one for a value that is not JSON. */
function paymentHeaders(payment: unknown): Record<string, string> {
  if (payment === undefined) return {};
  const version =
    typeof payment === "object" && payment !== null ? (payment as { x402Version?: unknown }).x402Version : 0;
  let encoded: string;
  try {
    encoded = encodePaymentSignatureHeader(payment as PaymentPayload);
  } catch {
    encoded = "not-a-payment";
  }
  return version === 1 ? { "X-PAYMENT": encoded } : { "PAYMENT-SIGNATURE": encoded };
}

async function servePrepaid(
  ctx: AppContext,
  tool: PaidTool,
  args: Record<string, unknown>,
  meta: RequestMeta,
  client: Headers,
): Promise<ServedCall> {
  const auth = meta?.[MCP_META.prepaid];
  const { pubkey, signature } = typeof auth === "object" && auth !== null ? (auth as Record<string, unknown>) : {};
  const headers = new Headers(client);
  if (typeof pubkey === "string") headers.set("x-agent-pubkey", pubkey);
  if (typeof signature === "string") headers.set("x-agent-signature", signature);
  let request: ResponsesRequest | null = null;
  const served = await servePrepaidInference(ctx, headers, mcpToolCallBytes(tool, args), {
    path: MCP_PATH,
    parse: (json) => {
      const signedArgs = (json as { arguments: Record<string, unknown> }).arguments;
      const body: Record<string, unknown> = { ...signedArgs };
      for (const name of SIGNED_ARGUMENTS) delete body[name];
      const signed = parseWith(signedFieldsSchema, signedArgs);
      if (tool === "chat") return prepaidChat(parseWith(chatRequestSchema, body), signed);
      request = parseWith(responsesRequestSchema, body);
      return prepaidChat(chatRequestOf(request), signed);
    },
  });
  // The parse ran before anything was served: a served Responses call always has its request.
  return request ? asResponsesAnswer(request, served) : served;
}

/** A served call as a tool result: the answer's text and a receipt line; the answer, receipt and settlement beside. */
function answered(ctx: AppContext, tool: PaidTool, served: ServedCall, meta: RequestMeta): ToolResult {
  // A tool call is never streamed: its arguments have no `stream`.
  const body = served.body ?? {};
  const parsed = parseReceiptText(served.headers["X-Service-Receipt"] ?? "");
  const receipt = parsed.ok ? (parsed.receipt as unknown as Record<string, unknown>) : null;
  const settlementHeader = served.headers["PAYMENT-RESPONSE"];
  const settlement = settlementHeader ? decodePaymentResponseHeader(settlementHeader) : null;
  const id = receipt ? String(receipt.inference_id) : "";
  const text = tool === "chat" ? chatAnswerText(body) : responsesAnswerText(body);
  const content: ToolResult["content"] = [{ type: "text", text }];
  if (receipt) {
    content.push({
      type: "text",
      text: `Signed receipt ${id}: check it at ${ctx.config.baseUrl}/r/${id} (or with the verify_receipt tool)`,
    });
  }
  return complete(meta, {
    content,
    structuredContent: { answer: body, receipt },
    _meta: {
      ...(receipt ? { [MCP_META.receipt]: receipt } : {}),
      ...(settlement ? { [MCP_META.paymentResponse]: settlement } : {}),
      ...(served.headers["X-Answer-Replayed"] ? { "org.signet/replayed": true } : {}),
    },
  });
}

/** A refusal as a tool result: a 402 in the request's payment binding, any other its stable code. */
function refused(ctx: AppContext, err: unknown, meta: RequestMeta): ToolResult {
  const { body } = toErrorBody(err, ctx.log);
  const error = errorObjectOf(body);
  const challenge = err instanceof AppError ? err.headers["PAYMENT-REQUIRED"] : undefined;
  if (challenge) {
    const paymentRequired = decodePaymentRequiredHeader(challenge);
    const reason = typeof error.reason === "string" ? error.reason : undefined;
    return paymentRequiredResult(meta, { ...paymentRequired, error: reason ?? error.message });
  }
  return refusalResult(meta, error);
}
