// Every answer under /api is JSON in the error table's shape, over HTTP: a path no route matches is 404 not_found (for
// every method), and a method a route does not serve is 405 method_not_allowed with an Allow header naming what it
// does. The routes are the app's own route files, found on disk (a new one is covered without editing this test), served
// the way Next's App Router picks them: static segments before dynamic ones, a catch-all last; a method a route module
// does not export gets what Next answers for it (an empty 405; OPTIONS 204; HEAD from GET), which these tests refuse.
import { readdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerWithRoute } from "../support/route-adapter";

const APP_DIR = path.resolve(import.meta.dirname, "../../../app");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
interface Route {
  /** The URL path template, as the folders spell it: /api/v1/receipts/[id]. */
  template: string;
  segments: string[];
  module: Partial<Record<(typeof METHODS)[number], Handler>>;
}

/** Every route.ts under app/api, by the URL path its folders make. */
function routeFiles(dir = path.join(APP_DIR, "api")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : [],
  );
}

/** Next's order among siblings: static, [dynamic], [...catch-all], [[...optional catch-all]]. */
const segmentRank = (s: string) => (s.startsWith("[[...") ? 3 : s.startsWith("[...") ? 2 : s.startsWith("[") ? 1 : 0);

function byPrecedence(a: Route, b: Route): number {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const [x, y] = [a.segments[i], b.segments[i]];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (segmentRank(x) !== segmentRank(y)) return segmentRank(x) - segmentRank(y);
  }
  return 0;
}

/** The params of `pathname` under `route`, or null when it does not match. */
function matchRoute(route: Route, parts: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const seg = route.segments[i]!;
    const name = seg.replace(/^\[+(\.\.\.)?|\]+$/g, "");
    if (seg.startsWith("[[..."))
      return i === route.segments.length - 1
        ? { ...params, ...(parts.length > i ? { [name]: parts.slice(i) } : {}) }
        : null;
    if (seg.startsWith("[...")) return parts.length > i ? { ...params, [name]: parts.slice(i) } : null;
    if (parts[i] === undefined) return null;
    if (seg.startsWith("[")) params[name] = parts[i]!;
    else if (seg !== parts[i]) return null;
  }
  return parts.length === route.segments.length ? params : null;
}

let routes: Route[];
let server: http.Server;
let base: string;

beforeAll(async () => {
  routes = await Promise.all(
    routeFiles().map(async (file) => {
      const template = `/${path.relative(APP_DIR, path.dirname(file)).split(path.sep).join("/")}`;
      return { template, segments: template.split("/").slice(1), module: (await import(file)) as Route["module"] };
    }),
  );
  routes.sort(byPrecedence);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const parts = (req.url ?? "/").split("?")[0]!.split("/").filter(Boolean).map(decodeURIComponent);
      const hit = routes.map((route) => ({ route, params: matchRoute(route, parts) })).find((m) => m.params);
      if (!hit)
        return void res
          .writeHead(404, { "content-type": "text/html" })
          .end("<!DOCTYPE html><html>Next's 404 page</html>");
      const method = (req.method ?? "GET") as (typeof METHODS)[number];
      const handler = hit.route.module[method] ?? (method === "HEAD" ? hit.route.module.GET : undefined);
      if (!handler) {
        // What Next answers for a method the route module does not export.
        if (method === "OPTIONS")
          return void res.writeHead(204, { allow: METHODS.filter((m) => hit.route.module[m]).join(", ") }).end();
        return void res.writeHead(405).end();
      }
      void answerWithRoute(
        (r) => handler(r, { params: Promise.resolve(hit.params!) }),
        req,
        Buffer.concat(chunks),
        res,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

async function send(method: string, urlPath: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${base}${urlPath}`, {
    method,
    ...(method === "POST" || method === "PUT" || method === "PATCH"
      ? { headers: { "content-type": "application/json" }, body: "{}" }
      : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A concrete path for a route's template: each dynamic segment filled with a value. */
const concretePath = (template: string) =>
  template
    .split("/")
    .map((s) =>
      s.startsWith("[[...") ? "" : s.startsWith("[...") ? "some/value" : s.startsWith("[") ? "some-value" : s,
    )
    .filter((s, i) => i === 0 || s !== "")
    .join("/");

describe("a path under /api that no route matches", () => {
  it.each([
    ["POST", "/api/v1/images/generations"],
    ["GET", "/api/v1/nope"],
    ["DELETE", "/api/v1/nope"],
    ["PUT", "/api/v2/chat/completions"],
    ["PATCH", "/api/v1/receipts/abc/proof/extra"],
    ["OPTIONS", "/api/v1/nope"],
    ["GET", "/api"],
    ["GET", "/api/trpc/a/b"],
  ])("answers %s %s with 404 not_found in JSON", async (method, urlPath) => {
    const res = await send(method, urlPath);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(body).toEqual({
      error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "not_found" },
      request_id: expect.any(String),
    });
    expect(res.headers.get("x-request-id")).toBe(body.request_id);
  });

  it("answers HEAD with 404 and no body", async () => {
    const res = await send("HEAD", "/api/v1/nope");
    expect(res.status).toBe(404);
    expect(res.text).toBe("");
  });
});

describe("a method a route under /api does not serve", () => {
  it("finds the routes on disk, the paid chat route among them", () => {
    expect(routes.map((r) => r.template)).toContain("/api/v1/chat/completions");
    expect(routes.length).toBeGreaterThan(15);
  });

  it("is 405 method_not_allowed in JSON with an Allow header naming exactly what the route serves, on every route", async () => {
    const checked: string[] = [];
    for (const route of routes.filter((r) => !r.template.includes("[[..."))) {
      const urlPath = concretePath(route.template);
      // No route serves PUT: its answer names what the route does serve.
      const put = await send("PUT", urlPath);
      expect(put.status, `PUT ${urlPath}: ${put.text}`).toBe(405);
      const allow = (put.headers.get("allow") ?? "").split(", ");
      expect(allow, `PUT ${urlPath} names what it serves`).toContain("OPTIONS");
      const served = allow.filter((m) => m !== "OPTIONS" && m !== "HEAD");
      expect(served.length, `${urlPath} serves a method`).toBeGreaterThan(0);
      if (allow.includes("HEAD") !== allow.includes("GET"))
        expect.fail(`${urlPath}: HEAD is served exactly with GET (${allow.join(", ")})`);
      for (const method of served)
        expect(typeof route.module[method as "GET"], `${urlPath} exports the ${method} it names in Allow`).toBe(
          "function",
        );
      for (const method of METHODS.filter((m) => !allow.includes(m))) {
        const res = await send(method, urlPath);
        expect(res.status, `${method} ${urlPath}`).toBe(405);
        expect(res.headers.get("allow"), `${method} ${urlPath}`).toBe(allow.join(", "));
        if (method === "HEAD") continue;
        expect(res.headers.get("content-type"), `${method} ${urlPath}`).toMatch(/^application\/json/);
        expect(JSON.parse(res.text), `${method} ${urlPath}`).toEqual({
          error: {
            message: expect.stringContaining(method),
            type: "invalid_request_error",
            param: null,
            code: "method_not_allowed",
          },
          request_id: expect.any(String),
        });
        checked.push(`${method} ${route.template}`);
      }
    }
    expect(checked).toContain("GET /api/v1/chat/completions");
    expect(checked).toContain("POST /api/v1/models");
  });
});
