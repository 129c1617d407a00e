// GET of the OpenAPI document, at /api/v1/openapi.json and at /openapi.json (where crawlers such as agentcash and
// x402scan look for it first): the same document, naming the service's public origin.
import "server-only";
import type { Config } from "../env";
import { buildOpenApiDocument } from "./openapi-document";

/** The document as an answer, cached by clients for five minutes. */
export function openApiAnswer(config: Pick<Config, "baseUrl" | "networks">): Response {
  return Response.json(buildOpenApiDocument(config.baseUrl, config.networks), {
    headers: { "cache-control": "public, max-age=300" },
  });
}
