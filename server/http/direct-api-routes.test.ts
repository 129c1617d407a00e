import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIRECT_API_PATHS, directHandler, loadDirectApiRoutes } from "./direct-api-routes";

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
    const routes = await loadDirectApiRoutes(fakeBuild(DIRECT_API_PATHS), () => {
      throw new Error("no warning expected");
    });
    expect([...routes.keys()]).toEqual([...DIRECT_API_PATHS]);
    expect([...routes.get("/api/v1/inference")!.keys()]).toEqual(["POST", "OPTIONS"]);
  });

  it("leaves a route whose module is missing or broken to Next, and says so", async () => {
    const dist = fakeBuild(["/api/v1/inference"]);
    mkdirSync(path.join(dist, "server", "app", "api", "verify"), { recursive: true });
    writeFileSync(path.join(dist, "server", "app", "api", "verify", "route.js"), "module.exports = {};");
    const warnings: string[] = [];
    const routes = await loadDirectApiRoutes(dist, (line) => warnings.push(line));
    expect([...routes.keys()]).toEqual(["/api/v1/inference"]);
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain("/api/v1/chat/completions is served through Next");
    expect(warnings.join("\n")).toContain("/api/verify is served through Next");
  });
});

describe("directHandler()", () => {
  it("matches the exact path (query aside) and an exported method only", async () => {
    const routes = await loadDirectApiRoutes(fakeBuild(DIRECT_API_PATHS), () => undefined);
    const handler = directHandler(routes, "POST", "/api/v1/inference?trace=1");
    expect(handler).not.toBeNull();
    expect(await (await handler!(new Request("http://x/api/v1/inference", { method: "POST" }))).text()).toBe("POST /api/v1/inference /api/v1/inference");
    expect(directHandler(routes, "GET", "/api/v1/inference")).toBeNull();
    expect(directHandler(routes, "POST", "/api/v1/inference/")).toBeNull();
    expect(directHandler(routes, "POST", "/api/v1/receipts/abc")).toBeNull();
    expect(directHandler(routes, undefined, "/api/v1/inference")).toBeNull();
  });
});
