// An embeddings call as the pipeline's upstream job: the inputs embedded on the built-in model or the provider, priced
// by the upstream facade, the receipt's prompt hash over the canonical inputs and its response hash over the vectors
// (server/verify/embedding-hashes.ts, as a verifier recomputes them), and OpenAI's embeddings body in the encoding asked.
import "server-only";
import { createHash } from "node:crypto";
import { sha256HexNode } from "../keys/server-verifier";
import type { UpstreamJob } from "../pipeline/call-types";
import { embeddingsPromptHash, embeddingsResponseHash } from "../verify";
import type { EmbeddingsRequest } from "../schemas/embeddings-request-schema";
import { embeddingsResponseBody } from "../schemas/embeddings-response-body";

/** The upstream job of a parsed embeddings request on the catalogue model `modelId`; embeddings never stream. */
export function embeddingsJob(body: EmbeddingsRequest, modelId: string): UpstreamJob {
  return {
    stream: null,
    async run(upstream) {
      const embedded = await upstream.embed({
        model: modelId,
        input: body.input,
        ...(typeof body.dimensions === "number" ? { dimensions: body.dimensions } : {}),
        ...(body.encoding_format ? { encoding_format: body.encoding_format } : {}),
        ...(typeof body.user === "string" ? { user: body.user } : {}),
      });
      const prompt = embeddingsPromptHash(body.input, sha256HexNode);
      // The schema admitted the input: a null hash is a bug, never a client's fault.
      if (prompt === null) throw new TypeError("an admitted embeddings input has no prompt hash");
      return {
        model: embedded.model,
        upstream: embedded.upstream,
        costUnits: embedded.costUnits,
        latencyMs: embedded.latencyMs,
        hashes: { prompt, response: embeddingsResponseHash(embedded.vectors, () => createHash("sha256")) },
        body: embeddingsResponseBody(embedded, body.encoding_format ?? "float"),
      };
    },
  };
}
