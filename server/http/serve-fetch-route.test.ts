import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serveFetchRoute, UNREAD_BODY_DRAIN, type FetchRoute } from "./serve-fetch-route";

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
    const res = await fetch(`${url}/api/v1/inference?x=1`, {
      method: "POST",
      headers: { "x-signature": "sig", "content-type": "application/json" },
      body: '{"a":1}',
    });
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

  /**
   * A raw HTTP/1.1 connection that sends a request's head announcing `bodyBytes`, waits for the answer's head (the route
   * answers without reading the body, as a reverse proxy sees it), then sends the body, then a second request on the same
   * connection. Resolves with everything the server sent, and whether the connection was reset.
   */
  async function refusedThenNext(url: string, bodyBytes: number): Promise<{ received: string; reset: boolean }> {
    const { port } = new URL(url);
    const socket = net.connect(Number(port), "127.0.0.1");
    let received = "";
    let reset = false;
    socket.on("data", (d) => (received += d.toString("latin1")));
    socket.on("error", () => (reset = true));
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${bodyBytes}\r\n\r\n`);
    while (!received.includes("\r\n\r\n") && !socket.destroyed) await new Promise((r) => socket.once("data", r));
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    for (let sent = 0; sent < bodyBytes && !socket.destroyed; sent += chunk.length) {
      if (!socket.write(chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent))))
        await new Promise((r) => (socket.once("drain", r), socket.once("close", r)));
    }
    if (!socket.destroyed) socket.write("GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await closed;
    return { received, reset };
  }

  const refuseUnread: FetchRoute = async (req) =>
    new URL(req.url).pathname === "/next" ? new Response("next") : new Response("too large", { status: 413 });

  it("reads and drops a body the route refused unread, so the answer is never lost to a reset and the connection serves on", async () => {
    const url = await serve(refuseUnread);
    const { received, reset } = await refusedThenNext(url, 1_000_001);
    expect(reset).toBe(false);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain("too large");
    expect(received).toMatch(/HTTP\/1\.1 200 [^]*\r\nnext\r\n/);
  });

  it("cuts off a client that sends more unread body than it drops", async () => {
    const url = await serve(refuseUnread);
    const { received } = await refusedThenNext(url, UNREAD_BODY_DRAIN.maxBytes + 1024 * 1024);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).not.toContain("next");
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
