// The public verification surfaces answer other origins (with preflight); the dashboard's tRPC stays same-origin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as discoveryRoute from "@/app/.well-known/x402/route";
import * as openapiRoute from "@/app/api/v1/openapi.json/route";
import * as operatorKeyRoute from "@/app/api/v1/operator-key/route";
import * as receiptRoute from "@/app/api/v1/receipts/[id]/route";
import * as trpcRoute from "@/app/api/trpc/[trpc]/route";
import * as verifierKeyRoute from "@/app/api/verify/operator-key/route";
import * as verifyRoute from "@/app/api/verify/route";
import { startDbStack, type DbStack } from "../support/db-stack";

let stack: DbStack;
beforeAll(async () => {
  stack = await startDbStack();
});
afterAll(async () => stack?.close());

const OTHER_ORIGIN = "https://verifier-client.example";
type Handler = (req: Request, ctx: never) => Promise<Response>;
const receiptCtx = { params: Promise.resolve({ id: "no-such-receipt" }) } as never;

const surfaces: {
  name: string;
  path: string;
  method: "GET" | "POST";
  module: Record<string, unknown>;
  ctx?: never;
  body?: string;
}[] = [
  { name: "the hosted verifier", path: "/api/verify", method: "POST", module: verifyRoute, body: "{}" },
  { name: "the operator key", path: "/api/v1/operator-key", method: "GET", module: operatorKeyRoute },
  { name: "the verifier key", path: "/api/verify/operator-key", method: "GET", module: verifierKeyRoute },
  {
    name: "receipt lookup",
    path: "/api/v1/receipts/no-such-receipt",
    method: "GET",
    module: receiptRoute,
    ctx: receiptCtx,
  },
  { name: "x402 discovery", path: "/.well-known/x402", method: "GET", module: discoveryRoute },
  { name: "the OpenAPI document", path: "/api/v1/openapi.json", method: "GET", module: openapiRoute },
];

describe("CORS on the public verification surfaces", () => {
  it.each(surfaces)(
    "answers a preflight for $name with the CORS headers and no body",
    async ({ path, method, module, ctx }) => {
      const options = module.OPTIONS as Handler | undefined;
      expect(options).toBeTypeOf("function");
      const res = await options!(
        new Request(`http://localhost:3000${path}`, {
          method: "OPTIONS",
          headers: {
            origin: OTHER_ORIGIN,
            "access-control-request-method": method,
            "access-control-request-headers": "content-type",
          },
        }),
        ctx ?? ({} as never),
      );
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain(method);
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
      expect(await res.text()).toBe("");
    },
  );

  it.each(surfaces)(
    "puts the CORS headers on $name's actual answer, success or error",
    async ({ path, method, module, ctx, body }) => {
      const handler = module[method] as Handler;
      const res = await handler(
        new Request(`http://localhost:3000${path}`, {
          method,
          headers: { origin: OTHER_ORIGIN, ...(body ? { "content-type": "application/json" } : {}) },
          ...(body ? { body } : {}),
        }),
        ctx ?? ({} as never),
      );
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-request-id");
    },
  );
});

describe("the dashboard's tRPC endpoint", () => {
  it("has no preflight handler and puts no CORS headers on queries or mutations", async () => {
    expect((trpcRoute as Record<string, unknown>).OPTIONS).toBeUndefined();
    const query = await trpcRoute.GET(
      new Request(`http://localhost:3000/api/trpc/explorer.rpcs?input=${encodeURIComponent("{}")}`, {
        headers: { origin: OTHER_ORIGIN },
      }),
    );
    const mutation = await trpcRoute.POST(
      new Request("http://localhost:3000/api/trpc/settings.set", {
        method: "POST",
        headers: { origin: OTHER_ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ key: "X402_FLAT_PRICE_USDC", value: "0.5" }),
      }),
    );
    expect(query.status).toBe(200);
    expect(mutation.status).toBe(401);
    for (const res of [query, mutation]) {
      for (const name of res.headers.keys()) expect(name.startsWith("access-control-")).toBe(false);
    }
  });
});
