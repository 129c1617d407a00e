import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIRECT_ROUTES } from "../http/direct-api-routes";
import { buildOpenApiDocument } from "../openapi/openapi-document";
import { SHIPPED_NETWORKS } from "../verify";
import { PAID_ROUTE_REGISTRY, PAID_ROUTES, paidRouteAt, paidRouteUrl } from "./paid-routes";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the paid-route registry", () => {
  it.each(PAID_ROUTES)("serves %s at a route folder whose handler exports its method", (route) => {
    const row = PAID_ROUTE_REGISTRY[route];
    const file = path.join(ROOT, "app", row.path, "route.ts");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toMatch(new RegExp(`export const ${row.method} =`));
  });

  it("hands the front server exactly the rows marked direct", () => {
    const direct = PAID_ROUTES.filter((r) => PAID_ROUTE_REGISTRY[r].direct).map((r) => PAID_ROUTE_REGISTRY[r].path);
    const paidPaths = new Set(PAID_ROUTES.map((r) => PAID_ROUTE_REGISTRY[r].path));
    expect(DIRECT_ROUTES.filter((p) => paidPaths.has(p))).toEqual(direct);
  });

  it("publishes each row's operation in the OpenAPI document, with its request schema", () => {
    const doc = buildOpenApiDocument("http://x", SHIPPED_NETWORKS) as {
      paths: Record<
        string,
        Record<string, { operationId: string; requestBody: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    for (const route of PAID_ROUTES) {
      const row = PAID_ROUTE_REGISTRY[route];
      const op = doc.paths[row.path]![row.method.toLowerCase()]!;
      expect(op.operationId).toBe(row.openapi.operationId);
      expect(op.requestBody.content["application/json"]!.schema).toEqual({
        $ref: `#/components/schemas/${row.openapi.requestSchemaId}`,
      });
    }
  });

  it("gives each row its own digest, metrics label and events, and finds each by its path", () => {
    for (const route of PAID_ROUTES) {
      expect(paidRouteAt(PAID_ROUTE_REGISTRY[route].path)).toBe(route);
      expect(paidRouteUrl("https://s.example", route)).toBe(`https://s.example${PAID_ROUTE_REGISTRY[route].path}`);
    }
    const digests = PAID_ROUTES.flatMap(
      (r) => PAID_ROUTE_REGISTRY[r].requestDigest?.({ model: "m" }, "solana-devnet") ?? [],
    );
    expect(new Set(digests).size).toBe(digests.length);
  });

  it("rejects malformed input: a path no row serves is no paid route", () => {
    expect(paidRouteAt("/api/v1/inference")).toBeNull();
    expect(paidRouteAt("/api/v1/chat/completions/")).toBeNull();
    expect(paidRouteAt("")).toBeNull();
  });
});
