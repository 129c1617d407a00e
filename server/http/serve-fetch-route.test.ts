import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serveFetchRoute, type FetchRoute } from "./serve-fetch-route";

let server: http.Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? (server.closeAllConnections(), server.close(() => r())) : r())));

async function serve(route: FetchRoute): Promise<string> {
  server = http.createServer((req, res) => void serveFetchRoute(route, req, res));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("serveFetchRoute()", () => {
  it("hands the route the method, URL on the request's Host, every header and the body, and writes its answer back", async () => {
    let seen: { method: string; url: string; headers: [string, string][]; body: string } | null = null;
    const url = await serve(async (req) => {
      seen = { method: req.method, url: req.url, headers: [...req.headers], body: await req.text() };
      const headers = new Headers({ "x-answer": "yes" });
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response("created", { status: 201, headers });
    });
    const res = await fetch(`${url}/api/v1/inference?x=1`, { method: "POST", headers: { "x-signature": "sig", "content-type": "application/json" }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("created");
    expect(res.headers.get("x-answer")).toBe("yes");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(seen!.method).toBe("POST");
    expect(seen!.url).toBe(`${url}/api/v1/inference?x=1`);
    expect(seen!.headers).toContainEqual(["x-signature", "sig"]);
    expect(seen!.body).toBe('{"a":1}');
  });

  it("streams the request body in, so the route's own size cap stops reading a body it refuses", async () => {
    let read = 0;
    const url = await serve(async (req) => {
      const reader = req.body!.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        read += value.length;
        if (read > 1024) {
          await reader.cancel();
          return new Response("too large", { status: 413 });
        }
      }
      return new Response("ok");
    });
    const big = new Uint8Array(8 * 1024 * 1024);
    const res = await fetch(`${url}/upload`, { method: "POST", body: big }).catch(() => null);
    // Either the 413 arrives or the connection is cut mid-upload; the route never buffered the whole body.
    if (res) expect(res.status).toBe(413);
    expect(read).toBeLessThan(big.length);
  });

  it("streams the answer as it is produced, and cancels it when the client goes away", async () => {
    let cancelled = false;
    let pulls = 0;
    const url = await serve(
      async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              pulls++;
              await new Promise((r) => setTimeout(r, 20));
              controller.enqueue(new TextEncoder().encode(`chunk ${pulls}\n`));
            },
            cancel() {
              cancelled = true;
            },
          }),
        ),
    );
    const abort = new AbortController();
    const res = await fetch(`${url}/stream`, { signal: abort.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("chunk 1");
    abort.abort();
    await expect.poll(() => cancelled, { timeout: 2_000 }).toBe(true);
  });
});
