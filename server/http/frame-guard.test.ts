import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_CSP } from "../openapi/api-reference";
import { guardFraming, withFrameAncestorsNone } from "./frame-guard";

describe("withFrameAncestorsNone()", () => {
  it("is the directive alone when there is no policy", () => {
    expect(withFrameAncestorsNone(undefined)).toBe("frame-ancestors 'none'");
    expect(withFrameAncestorsNone("")).toBe("frame-ancestors 'none'");
    expect(withFrameAncestorsNone(" ; ")).toBe("frame-ancestors 'none'");
  });

  it("adds the directive to a policy that has none, keeping every other directive as it was", () => {
    expect(withFrameAncestorsNone(DOCS_CSP)).toBe(`${DOCS_CSP}; frame-ancestors 'none'`);
    expect(withFrameAncestorsNone("default-src 'self';")).toBe("default-src 'self'; frame-ancestors 'none'");
  });

  it("puts 'none' in place of a frame-ancestors directive that allows an ancestor, in any case", () => {
    expect(withFrameAncestorsNone("default-src 'self'; frame-ancestors 'self' https://a.example")).toBe(
      "default-src 'self'; frame-ancestors 'none'",
    );
    expect(withFrameAncestorsNone("Frame-Ancestors *; img-src data:")).toBe("img-src data:; frame-ancestors 'none'");
    expect(withFrameAncestorsNone("frame-ancestors")).toBe("frame-ancestors 'none'");
  });

  it("leaves a directive whose name only starts like frame-ancestors alone", () => {
    expect(withFrameAncestorsNone("frame-ancestors-x y")).toBe("frame-ancestors-x y; frame-ancestors 'none'");
  });
});

/** Each way a handler may send its head, by path. */
const HANDLERS: Record<string, (res: http.ServerResponse) => void> = {
  // Next's pages: headers set one by one, the head sent implicitly by the first write.
  "/page": (res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.write("<!doctype html>");
    res.end("<p>page</p>");
  },
  // A route's own policy, copied the way Next copies a route handler's Response headers (append when absent).
  "/docs": (res) => {
    res.appendHeader("content-security-policy", DOCS_CSP);
    res.end("<html></html>");
  },
  // The direct routes and the error answers: writeHead with an object.
  "/json": (res) => {
    res.writeHead(402, { "content-type": "application/json", "x-frame-options": "SAMEORIGIN" });
    res.end("{}");
  },
  "/reason": (res) => {
    res.writeHead(200, "Fine", { "content-security-policy": "default-src 'none'; frame-ancestors *" });
    res.end();
  },
  // writeHead with a flat list after setHeader: every Set-Cookie it repeats is kept.
  "/list": (res) => {
    res.setHeader("x-before", "1");
    res.writeHead(200, ["Set-Cookie", "a=1", "Set-Cookie", "b=2", "Content-Security-Policy", "img-src 'self'"]);
    res.end();
  },
  "/two-policies": (res) => {
    res.setHeader("content-security-policy", ["default-src 'self'", "script-src 'self'"]);
    res.end();
  },
  "/empty": (res) => {
    res.statusCode = 204;
    res.end();
  },
};

describe("guardFraming()", () => {
  let server: http.Server;
  let port: number;
  const secondHead: unknown[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      guardFraming(res);
      if (req.url === "/twice") {
        res.writeHead(200);
        try {
          res.writeHead(500);
        } catch (err) {
          secondHead.push((err as { code?: string }).code);
        }
        return void res.end();
      }
      HANDLERS[req.url!]!(res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** The status and every raw header line of a GET, by lower-case name. */
  const get = (path: string) =>
    new Promise<{ status: number; message: string; headers: Map<string, string[]> }>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path }, (res) => {
          const headers = new Map<string, string[]>();
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i]!.toLowerCase();
            headers.set(name, [...(headers.get(name) ?? []), res.rawHeaders[i + 1]!]);
          }
          res.resume().on("end", () => resolve({ status: res.statusCode!, message: res.statusMessage!, headers }));
        })
        .on("error", reject);
    });

  it("sends X-Frame-Options: DENY and frame-ancestors 'none' once, whichever way the head is sent", async () => {
    for (const path of [...Object.keys(HANDLERS), "/twice"]) {
      const { headers } = await get(path);
      expect(headers.get("x-frame-options"), path).toEqual(["DENY"]);
      const policies = headers.get("content-security-policy") ?? [];
      expect(policies.length, path).toBeGreaterThan(0);
      for (const policy of policies)
        expect(policy.match(/frame-ancestors[^;]*/g), `${path}: ${policy}`).toEqual(["frame-ancestors 'none'"]);
    }
  });

  it("merges the directive into a route's own policy instead of sending a second one", async () => {
    expect((await get("/docs")).headers.get("content-security-policy")).toEqual([
      `${DOCS_CSP}; frame-ancestors 'none'`,
    ]);
    expect((await get("/page")).headers.get("content-security-policy")).toEqual(["frame-ancestors 'none'"]);
    expect((await get("/reason")).headers.get("content-security-policy")).toEqual([
      "default-src 'none'; frame-ancestors 'none'",
    ]);
    expect((await get("/two-policies")).headers.get("content-security-policy")).toEqual([
      "default-src 'self'; frame-ancestors 'none'",
      "script-src 'self'; frame-ancestors 'none'",
    ]);
  });

  it("keeps the status, the reason, and every header the handler sent", async () => {
    const json = await get("/json");
    expect(json.status).toBe(402);
    expect(json.headers.get("content-type")).toEqual(["application/json"]);
    const reason = await get("/reason");
    expect([reason.status, reason.message]).toEqual([200, "Fine"]);
    const list = await get("/list");
    expect(list.headers.get("set-cookie")).toEqual(["a=1", "b=2"]);
    expect(list.headers.get("x-before")).toEqual(["1"]);
    expect(list.headers.get("content-security-policy")).toEqual(["img-src 'self'; frame-ancestors 'none'"]);
    expect((await get("/empty")).status).toBe(204);
  });

  it("leaves a second head Node's error, as without the guard", async () => {
    secondHead.length = 0;
    await get("/twice");
    expect(secondHead).toEqual(["ERR_HTTP_HEADERS_SENT"]);
  });
});
