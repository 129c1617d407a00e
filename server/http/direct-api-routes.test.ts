import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIRECT_ROUTES, directHandler, loadDirectApiRoutes } from "./direct-api-routes";

/** A build folder whose route modules look like `next build`'s, each handler answering its path and method. */
function fakeBuild(paths: readonly string[]): string {
  const dist = mkdtempSync(path.join(tmpdir(), "signet-dist-"));
  for (const route of paths) {
    const dir = path.join(dist, "server", "app", route);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, "route.js"),
      `let loaded = false;
       const userland = {
         POST: async (req) => new Response("POST ${route} " + new URL(req.url).pathname),
         GET: async (req, ctx) => Response.json(await ctx.params),
         OPTIONS: async () => new Response(null, { status: 204 }),
         dynamic: "force-dynamic",
       };
       module.exports = { routeModule: { ensureUserland: async () => { loaded = true; }, get userland() { if (!loaded) throw new Error("not loaded"); return userland; } } };`,
    );
  }
  return dist;
}

describe("loadDirectApiRoutes()", () => {
  it("loads each built route's handlers by method, after the module's own loading", async () => {
    const routes = await loadDirectApiRoutes(fakeBuild(DIRECT_ROUTES), () => {
      throw new Error("no warning expected");
    });
    expect([...routes.keys()]).toEqual([...DIRECT_ROUTES]);
    expect([...routes.get("/api/v1/inference")!.keys()]).toEqual(["GET", "POST", "OPTIONS"]);
  });

  it("leaves a route whose module is missing or broken to Next, and says so", async () => {
    const dist = fakeBuild(["/api/v1/inference"]);
    mkdirSync(path.join(dist, "server", "app", "api", "verify"), { recursive: true });
    writeFileSync(path.join(dist, "server", "app", "api", "verify", "route.js"), "module.exports = {};");
    const warnings: string[] = [];
    const routes = await loadDirectApiRoutes(dist, (line) => warnings.push(line));
    expect([...routes.keys()]).toEqual(["/api/v1/inference"]);
    expect(warnings).toHaveLength(DIRECT_ROUTES.length - 1);
    expect(warnings.join("\n")).toContain("/api/v1/chat/completions is served through Next");
    expect(warnings.join("\n")).toContain("/api/verify is served through Next");
  });
});

describe("directHandler()", () => {
  it("matches the exact path (query aside) and an exported method only", async () => {
    const routes = await loadDirectApiRoutes(fakeBuild(DIRECT_ROUTES), () => undefined);
    const handler = directHandler(routes, "POST", "/api/v1/inference?trace=1");
    expect(handler).not.toBeNull();
    expect(await (await handler!(new Request("http://x/api/v1/inference", { method: "POST" }))).text()).toBe(
      "POST /api/v1/inference /api/v1/inference",
    );
    expect(directHandler(routes, "PUT", "/api/v1/inference")).toBeNull();
    expect(directHandler(routes, "POST", "/api/v1/inference/")).toBeNull();
    expect(directHandler(routes, "POST", "/api/v1/receipts/abc")).toBeNull();
    expect(directHandler(routes, undefined, "/api/v1/inference")).toBeNull();
  });
});

describe("directHandler() on the receipt log's routes", () => {
  it("passes a last [param] segment and a [...catch-all]'s segments as Next does, decoded", async () => {
    const routes = await loadDirectApiRoutes(fakeBuild(DIRECT_ROUTES), () => undefined);
    const params = async (url: string) =>
      (await directHandler(routes, "GET", url)!(new Request(`http://x${url}`))).json();
    expect(await params("/log/checkpoint")).toEqual({});
    expect(await params("/log/checkpoints/12?x=1")).toEqual({ size: "12" });
    expect(await params("/log/tile/0/x001/234.p/7")).toEqual({ path: ["0", "x001", "234.p", "7"] });
    expect(await params("/log/tile/entries/%30%30%30")).toEqual({ path: ["entries", "000"] });
  });

  it("leaves to Next what the routes do not match: another depth, an empty segment, a malformed escape", async () => {
    const routes = await loadDirectApiRoutes(fakeBuild(DIRECT_ROUTES), () => undefined);
    for (const url of [
      "/log/checkpoints/12/13",
      "/log/checkpoints/",
      "/log/tile/",
      "/log/tile//0",
      "/log/tile/0/%E0%A4%A",
      "/log/checkpoint/",
      "/log/keys",
    ]) {
      expect(directHandler(routes, "GET", url), url).toBeNull();
    }
  });
});
