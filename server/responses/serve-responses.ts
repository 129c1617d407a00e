// The responses route's two ways to pay: a request signed by an agent's key (X-Agent-Pubkey / X-Agent-Signature) is
// served from that agent's prepaid credit; any other is paid per call with x402. The signed way checks its signature
// over the exact bytes before parsing, so this takes the body as bytes.
import "server-only";
import type { AppContext } from "../context/app-context";
import { parseWith } from "../http/parse-with";
import { decodeBodyText, parseJsonText } from "../http/read-json-body";
import type { ServedCall } from "../pipeline/call-types";
import { responsesRequestSchema } from "../schemas/responses-request-schema";
import { paidBodyBytes } from "../x402/unpaid-probe";
import { servePaidResponses } from "./serve-paid-responses";
import { servePrepaidResponses } from "./serve-prepaid-responses";

export interface ResponsesInput {
  headers: Headers;
  rawBody: Uint8Array;
  /** The public URL of the resource, for the x402 challenge. */
  resourceUrl: string;
}

/** Serves one Responses request, prepaid when it is signed, else paid with x402. Throws AppError for every refusal. */
export async function serveResponses(ctx: AppContext, input: ResponsesInput): Promise<ServedCall> {
  if (input.headers.has("x-agent-signature") || input.headers.has("x-agent-pubkey"))
    return servePrepaidResponses(ctx, input.headers, input.rawBody);
  const text = decodeBodyText(paidBodyBytes("responses", input.headers, input.rawBody));
  const body = parseWith(responsesRequestSchema, parseJsonText(text));
  return servePaidResponses(ctx, { body, headers: input.headers, resourceUrl: input.resourceUrl });
}
