// The chat route's two ways to pay: a request signed by an agent's key (X-Agent-Pubkey / X-Agent-Signature) is served
// from that agent's prepaid credit; any other is paid per call with x402. The signed way checks its signature over the
// exact bytes before parsing, so this takes the body as bytes.
import "server-only";
import type { AppContext } from "../context/app-context";
import { parseWith } from "../http/parse-with";
import type { ServedCall } from "../pipeline/call-types";
import { chatRequestSchema } from "../schemas/chat-request-schema";
import { paidJson } from "../x402/unpaid-probe";
import { isSignedRequest } from "../prepaid/signed-request";
import { servePaidChat } from "./serve-paid-chat";
import { servePrepaidChat } from "./serve-prepaid-chat";

export interface ChatInput {
  headers: Headers;
  rawBody: Uint8Array;
  /** The public URL of the resource, for the x402 challenge. */
  resourceUrl: string;
}

/** Serves one chat request, prepaid when it is signed, else paid with x402. Throws AppError for every refusal. */
export async function serveChat(ctx: AppContext, input: ChatInput): Promise<ServedCall> {
  if (isSignedRequest(input.headers)) return servePrepaidChat(ctx, input.headers, input.rawBody);
  const body = parseWith(chatRequestSchema, paidJson("chat", input.headers, input.rawBody));
  return servePaidChat(ctx, { body, headers: input.headers, resourceUrl: input.resourceUrl });
}
