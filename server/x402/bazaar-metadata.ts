// Discovery metadata for the x402 `bazaar` extension (@x402/extensions): how to call each paid route (its JSON
// body's schema and an example) and what it answers (schema and example), declared in its 402s and listed by
// /.well-known/x402, from the paid-route registry. The schemas are the zod schemas the route validates with and the
// OpenAPI document publishes, converted the same way, so the catalogue cannot drift from the API. A body's is its core
// fields only: the 402 carries the declaration in a header, whose size clients bound; the OpenAPI document has every
// field. Built once per process.
import "server-only";
import { z } from "zod";
import { declareDiscoveryExtension, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { paidRoute, type PaidRoute } from "./paid-routes";

/** A zod schema as the OpenAPI document converts it, inline and without the dialect (it becomes a subschema). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

/** Bounded memo cache: each paid route's declaration, built once (bound: the number of paid routes). */
const declared = new Map<PaidRoute, DiscoveryExtension>();

/**
 * The resource's bazaar declaration (`info` + `schema`), before the resource server adds the HTTP method. Each call
 * returns the same object: treat it as read-only.
 */
export function bazaarDeclaration(resource: PaidRoute): DiscoveryExtension {
  let extension = declared.get(resource);
  if (!extension) {
    const { input, output, example } = paidRoute(resource).bazaar;
    extension = declareDiscoveryExtension({
      bodyType: "json",
      input: example.input,
      inputSchema: jsonSchemaOf(input),
      output: { example: example.output, schema: jsonSchemaOf(output) },
    }).bazaar!;
    declared.set(resource, extension);
  }
  return extension;
}

/** Bounded memo cache: each paid route's v1 `outputSchema`, built once (bound: the number of paid routes). */
const v1Schemas = new Map<PaidRoute, V1OutputSchema>();

/**
 * The same discovery metadata in x402 v1's form, for a v1 requirement's `outputSchema` (what v1 bazaar discovery,
 * `isDiscoverableV1`, reads): the HTTP input with its JSON body's fields (the body schema's properties, as the JSON
 * Schema of each) and the answer's example.
 */
export interface V1OutputSchema {
  input: { type: "http"; method: "POST"; bodyType: "json"; bodyFields: Record<string, unknown>; discoverable: true };
  output: Record<string, unknown>;
}

export function v1OutputSchema(resource: PaidRoute): V1OutputSchema {
  let schema = v1Schemas.get(resource);
  if (!schema) {
    const row = paidRoute(resource);
    const properties = (jsonSchemaOf(row.bazaar.input).properties ?? {}) as Record<string, unknown>;
    schema = {
      input: { type: "http", method: row.method, bodyType: "json", bodyFields: properties, discoverable: true },
      output: row.bazaar.example.output,
    };
    v1Schemas.set(resource, schema);
  }
  return schema;
}
