import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { errorBody } from "../errors";
import {
  createFrontServer,
  FRONT_SERVER_LIMITS,
  HEADERS_TIMEOUT_MS,
  INTERNAL_ERROR_BODY,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  NOT_ORIGIN_FORM_BODY,
  NOT_ORIGIN_FORM_MESSAGE,
  REQUEST_TIMEOUT_MS,
  type FrontServerLimits,
} from "./front-server";

/** How long a raw exchange waits for the server to close before the client gives up: far below Node's own defaults. */
const GIVE_UP_MS = 3_000;

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** Milliseconds from connecting until the server closed the connection, or null when it was still open at GIVE_UP_MS. */
  closedAfterMs: number | null;
}

/** Sends `writes` (each at its delay from connecting) over a raw TCP socket and reads until the server closes. */
function exchange(port: number, writes: [atMs: number, data: string][]): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const started = Date.now();
    let text = "";
    const timers = writes.map(([at, data]) => setTimeout(() => socket.write(data), at));
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs: null });
    }, GIVE_UP_MS);
    const closed = () => {
      timers.forEach(clearTimeout);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ text, closedAfterMs: Date.now() - started });
    };
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    // A write the client had scheduled may reach a connection the server has just cut (EPIPE, or a reset) before the
    // end is read: that is the server closing it too.
    socket.on("error", (err: NodeJS.ErrnoException) =>
      err.code === "EPIPE" || err.code === "ECONNRESET" ? closed() : reject(err),
    );
    socket.on("end", closed);
  });
}

/** The status, the headers (lower-case names, every value) and the body of the first answer in `text`. */
function parseAnswer(text: string): { status: number; headers: Map<string, string[]>; body: string } {
  const [head, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...lines] = head!.split("\r\n");
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const name = line.slice(0, line.indexOf(":")).toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(line.indexOf(":") + 1).trim()]);
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((r) => server.close(() => r()));
}

describe("createFrontServer()", () => {
  let server: http.Server;
  let port: number;
  const handled: string[] = [];
  beforeAll(async () => {
    server = createFrontServer(async (req, res) => {
      handled.push(req.url!);
      await Promise.resolve();
      if (req.url === "/throws") throw new Error("a secret the client must not see");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<p>page</p>");
    });
    port = await listen(server);
  });
  afterAll(() => close(server));

  it("answers an absolute-form target naming a foreign host 400 invalid_request, never a redirect, and never hands it on", async () => {
    handled.length = 0;
    const { text } = await exchange(port, [
      [0, "GET http://evil.example/whatever HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"],
    ]);
    const answer = parseAnswer(text);
    expect(answer.status).toBe(400);
    expect(answer.headers.has("location")).toBe(false);
    expect(answer.headers.get("content-type")).toEqual(["application/json"]);
    expect(JSON.parse(answer.body)).toEqual(errorBody("invalid_request", NOT_ORIGIN_FORM_MESSAGE));
    expect(handled).toEqual([]);
  });

  it("refuses an absolute-form target naming this server's own host, and the asterisk form, the same way", async () => {
    handled.length = 0;
    for (const line of [
      `GET http://127.0.0.1:${port}/explorer HTTP/1.1`,
      `POST https://127.0.0.1:${port}/api/v1/models HTTP/1.1`,
      "OPTIONS * HTTP/1.1",
    ]) {
      const { text } = await exchange(port, [
        [0, `${line}\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`],
      ]);
      const answer = parseAnswer(text);
      expect(answer.status, line).toBe(400);
      expect(answer.body, line).toBe(NOT_ORIGIN_FORM_BODY);
    }
    expect(handled).toEqual([]);
  });

  it("serves a path, and every answer, the refusal included, refuses framing", async () => {
    for (const target of ["/explorer", "http://evil.example/"]) {
      const { text } = await exchange(port, [
        [0, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`],
      ]);
      const answer = parseAnswer(text);
      expect(answer.status, target).toBe(target === "/explorer" ? 200 : 400);
      expect(answer.headers.get("x-frame-options"), target).toEqual(["DENY"]);
      expect(answer.headers.get("content-security-policy"), target).toEqual(["frame-ancestors 'none'"]);
    }
  });

  it("answers 500 internal_error without the error's message when the handler throws", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const { text } = await exchange(port, [
        [0, "GET /throws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"],
      ]);
      const answer = parseAnswer(text);
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body)).toEqual(errorBody("internal_error", "internal error"));
      expect(answer.body).toBe(INTERNAL_ERROR_BODY);
      expect(logged).toHaveBeenCalledOnce();
    } finally {
      logged.mockRestore();
    }
  });

  it("takes a request head well above Node's 16 KB default (an x402 payment header with its extensions), and refuses one above its own limit", async () => {
    const status = (bytes: number) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(
            { host: "127.0.0.1", port, headers: { "payment-signature": "x".repeat(bytes) } },
            (res) => (res.resume(), resolve(res.statusCode!)),
          )
          .on("error", reject);
      });
    expect(await status(40 * 1024)).toBe(200);
    expect(await status(MAX_HEADER_BYTES + 1024)).toBe(431);
  });

  it("bounds a request's head and body by its own limits, not Node's minutes-long defaults", () => {
    expect(server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(REQUEST_TIMEOUT_MS).toBeLessThan(60_000);
    expect(FRONT_SERVER_LIMITS.timeoutCheckIntervalMs).toBeLessThan(HEADERS_TIMEOUT_MS);
  });
});

describe("createFrontServer() with small limits", () => {
  const limits: FrontServerLimits = {
    headersTimeoutMs: 300,
    requestTimeoutMs: 600,
    keepAliveTimeoutMs: 300,
    timeoutCheckIntervalMs: 50,
  };
  /** What Node adds to the keep-alive bound before it closes an idle socket (it advertises the bound itself). */
  const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;
  /** What scheduling on a busy machine may add to a bound before Node's check runs. */
  const SLACK_MS = 700;
  let server: http.Server;
  let port: number;
  const handled: string[] = [];
  beforeAll(async () => {
    server = createFrontServer((req, res) => {
      handled.push(req.url!);
      if (req.url === "/stream") {
        // Streams for well past the request bound (Server-Sent Events last minutes), once its request is in.
        res.writeHead(200, { "content-type": "text/event-stream" });
        let n = 0;
        const tick = setInterval(() => {
          res.write(`data: ${n}\n\n`);
          if (++n === 12) {
            clearInterval(tick);
            res.end("data: [DONE]\n\n");
          }
        }, 100);
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => res.end(`got ${Buffer.concat(chunks).length} bytes`));
    }, limits);
    port = await listen(server);
  });
  afterAll(() => close(server));

  it("cuts off a client that never finishes its head with 408 within the head bound, before any handler sees it", async () => {
    handled.length = 0;
    const { text, closedAfterMs } = await exchange(port, [[0, "GET /explorer HTTP/1.1\r\nHost: 127.0.0.1\r\n"]]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    expect(closedAfterMs!).toBeLessThan(limits.headersTimeoutMs + SLACK_MS);
    expect(parseAnswer(text).status).toBe(408);
    expect(handled).toEqual([]);
  });

  it("cuts off a connection that sends nothing within the head bound", async () => {
    const { closedAfterMs } = await exchange(port, []);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeLessThan(limits.headersTimeoutMs + SLACK_MS);
  });

  it("cuts off a client that trickles its head a line at a time", async () => {
    // A line every 100 ms keeps the connection busy for 4 s, well past the head bound: the cut comes while the client
    // is still sending (no handler ever sees the request), however late a busy machine runs Node's check.
    handled.length = 0;
    const lines = ["GET /trickled HTTP/1.1\r\n", ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
    const writes = lines.map((line, i): [number, string] => [i * 100, line]);
    const { closedAfterMs } = await exchange(port, writes);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    expect(closedAfterMs!).toBeLessThan(writes.at(-1)![0]);
    expect(handled).toEqual([]);
  });

  it("cuts off a client that never finishes its body within the request bound", async () => {
    handled.length = 0;
    const { text, closedAfterMs } = await exchange(port, [
      [0, "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789"],
    ]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(limits.requestTimeoutMs - 50);
    expect(closedAfterMs!).toBeLessThan(limits.requestTimeoutMs + SLACK_MS);
    expect(parseAnswer(text).status).toBe(408);
    expect(handled).toEqual(["/upload"]);
  });

  it("never cuts an answer streamed for longer than the request bound once its request is in", async () => {
    const { text, closedAfterMs } = await exchange(port, [
      [0, "GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"],
    ]);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThan(2 * limits.requestTimeoutMs);
    const answer = parseAnswer(text);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("data: 11");
    expect(answer.body).toContain("data: [DONE]");
  });

  it("closes a kept-alive connection left idle past its keep-alive bound", async () => {
    const { text, closedAfterMs } = await exchange(port, [
      [0, "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nhi"],
    ]);
    expect(parseAnswer(text).body).toBe("got 2 bytes");
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeLessThan(limits.keepAliveTimeoutMs + NODE_KEEP_ALIVE_BUFFER_MS + SLACK_MS);
  });
});
