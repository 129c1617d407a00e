import { describe, expect, it } from "vitest";
import {
  bazaarResourceServerExtension,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import { chatRequestSchema } from "../schemas/chat-request-schema";
import { buildOpenApiDocument } from "../openapi/openapi-document";
import { SHIPPED_NETWORKS } from "../verify";
import { chatCompletionSchema, responsesObjectSchema, topUpResultSchema } from "../schemas/response-schemas";
import { responsesRequestSchema } from "../schemas/responses-request-schema";
import { topUpRequestSchema } from "../schemas/top-up-request-schema";
import { bazaarDeclaration, jsonSchemaOf } from "./bazaar-metadata";
import { PAID_ROUTE_EXAMPLES as BAZAAR_EXAMPLES } from "./paid-route-examples";
import { chatDiscoverySchema, PAID_ROUTES, paidRoute, responsesAnswerSchema, type PaidRoute } from "./paid-routes";

const RESOURCES: PaidRoute[] = PAID_ROUTES;

/** As the resource server's enrichment leaves it for a POST route (the 402's form). */
function enriched(resource: PaidRoute): DiscoveryExtension {
  const { path } = paidRoute(resource);
  return bazaarResourceServerExtension.enrichDeclaration!(bazaarDeclaration(resource), {
    method: "POST",
    routePattern: path,
    adapter: { getPath: () => path },
  }) as DiscoveryExtension;
}

describe("bazaarDeclaration()", () => {
  it.each(RESOURCES)("declares %s so that the package's own validators accept it as the 402 carries it", (resource) => {
    // The declaration's schema requires the method, which the resource server's enrichment adds (as for the 402).
    expect(
      validateDiscoveryExtensionSpec(bazaarDeclaration(resource) as unknown as Record<string, unknown>),
    ).toMatchObject({ valid: true });
    const extension = enriched(resource);
    expect(validateDiscoveryExtension(extension)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(extension as unknown as Record<string, unknown>)).toMatchObject({
      valid: true,
    });
    expect(extension.info.input).toMatchObject({ type: "http", method: "POST", bodyType: "json" });
  });

  it("takes the input and output schemas from the zod schemas the OpenAPI document publishes", () => {
    const components = (
      buildOpenApiDocument("http://x", SHIPPED_NETWORKS).components as { schemas: Record<string, unknown> }
    ).schemas;
    const body = (resource: PaidRoute) =>
      (bazaarDeclaration(resource).schema.properties.input as { properties: { body: unknown } }).properties.body;
    const output = (resource: PaidRoute) =>
      (
        bazaarDeclaration(resource).schema.properties as unknown as {
          output: { properties: { example: Record<string, unknown> } };
        }
      ).output.properties.example;
    expect(body("chat")).toEqual({ type: "object", ...jsonSchemaOf(chatDiscoverySchema) });
    // The chat body's core fields are the route's own, as the OpenAPI document publishes them.
    const published = (components.ChatRequest as { properties: Record<string, unknown> }).properties;
    for (const [field, schema] of Object.entries((body("chat") as { properties: Record<string, unknown> }).properties))
      expect(schema).toEqual(published[field]);
    expect(body("topup")).toEqual(components.TopUpRequest);
    expect(output("chat")).toEqual({ type: "object", ...jsonSchemaOf(chatCompletionSchema) });
    expect(output("topup")).toEqual({ type: "object", ...jsonSchemaOf(topUpResultSchema) });
    expect(output("responses")).toEqual({ type: "object", ...jsonSchemaOf(responsesAnswerSchema) });
    expect(jsonSchemaOf(chatCompletionSchema)).toEqual(components.ChatCompletion);
    expect(jsonSchemaOf(topUpResultSchema)).toEqual(components.TopUp);
  });

  it("gives examples that the routes' own zod schemas accept", () => {
    expect(chatRequestSchema.safeParse(BAZAAR_EXAMPLES.chat.input).success).toBe(true);
    expect(chatCompletionSchema.safeParse(BAZAAR_EXAMPLES.chat.output).success).toBe(true);
    expect(responsesRequestSchema.safeParse(BAZAAR_EXAMPLES.responses.input).success).toBe(true);
    expect(responsesObjectSchema.safeParse(BAZAAR_EXAMPLES.responses.output).success).toBe(true);
    expect(topUpRequestSchema.safeParse(BAZAAR_EXAMPLES.topup.input).success).toBe(true);
    expect(topUpResultSchema.safeParse(BAZAAR_EXAMPLES.topup.output).success).toBe(true);
  });

  it("rejects malformed input: an example the schema refuses makes the package's validation fail", () => {
    const extension = structuredClone(bazaarDeclaration("chat"));
    (extension.info.input as { body: Record<string, unknown> }).body = { model: "local/echo-1", messages: [] };
    const result = validateDiscoveryExtension(extension);
    expect(result.valid).toBe(false);
    expect(result.errors?.join(" ")).toMatch(/messages/);
  });
});
