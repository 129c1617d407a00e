// The embeddings route's two ways to pay: a request signed by an agent's key (X-Agent-Pubkey / X-Agent-Signature) is
// served from that agent's prepaid credit; any other is paid per call with x402. The signed way checks its signature
// over the exact bytes before parsing, so this takes the body as bytes.
import "server-only";
import type { AppContext } from "../context/app-context";
import type { ServedCall } from "../pipeline/call-types";
import { paidJson } from "../x402/unpaid-probe";
import { isSignedRequest } from "../prepaid/signed-request";
import { parseEmbeddingsRequest } from "./embeddings-call";
import { servePaidEmbeddings } from "./serve-paid-embeddings";
import { servePrepaidEmbeddings } from "./serve-prepaid-embeddings";

export interface EmbeddingsInput {
  headers: Headers;
  rawBody: Uint8Array;
  /** The public URL of the resource, for the x402 challenge. */
  resourceUrl: string;
}

/** Serves one embeddings request, prepaid when it is signed, else paid with x402. Throws AppError for every refusal. */
export async function serveEmbeddings(ctx: AppContext, input: EmbeddingsInput): Promise<ServedCall> {
  if (isSignedRequest(input.headers)) return servePrepaidEmbeddings(ctx, input.headers, input.rawBody);
  return servePaidEmbeddings(ctx, {
    body: parseEmbeddingsRequest(paidJson("embeddings", input.headers, input.rawBody)),
    headers: input.headers,
    resourceUrl: input.resourceUrl,
  });
}
