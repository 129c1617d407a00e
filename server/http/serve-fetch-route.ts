// Serves a fetch-style route handler (Request → Response) on a node:http request, the way Next's server does for a
// route handler: the request body streams in (the handler's own size cap applies as it reads), the answer streams out
// with backpressure, and a client that goes away cancels the answer's body (what ends an abandoned stream upstream).
// Loaded by the front server outside the react-server condition: it imports nothing server-only.
import type http from "node:http";
import { Readable } from "node:stream";

export type FetchRoute = (req: Request) => Promise<Response>;

/** The fetch Request for a node:http request: its method, headers and URL (on its Host), its body streamed. */
function toFetchRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

/**
 * How much of a body the route did not read (one refused past its size cap) is still read and dropped once the answer
 * is out, and for how long, before the connection is closed. Closing a socket with unread bytes resets it, and a
 * reverse proxy still sending the body then loses the answer too (nginx answers 502 for the service's 413); past these
 * bounds a client sending on and on is cut off.
 */
export const UNREAD_BODY_DRAIN = { maxBytes: 4 * 1024 * 1024, maxMs: 5_000 };

/** Answers `req` with `route`'s Response, streamed. */
export async function serveFetchRoute(
  route: FetchRoute,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  res.once("finish", () => {
    if (!req.complete) drainUnreadBody(req);
  });
  await writeFetchResponse(await route(toFetchRequest(req)), res);
}

/** Reads and drops the rest of `req`'s body within UNREAD_BODY_DRAIN, then closes its connection if it is not done. */
function drainUnreadBody(req: http.IncomingMessage): void {
  if (req.destroyed) return;
  let read = 0;
  const cutOff = () => {
    clearTimeout(timer);
    if (!req.complete) req.destroy();
  };
  const timer = setTimeout(cutOff, UNREAD_BODY_DRAIN.maxMs);
  timer.unref();
  // The fetch Request's body stream is done with: its listener would queue the rest and pause the socket again.
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read > UNREAD_BODY_DRAIN.maxBytes) cutOff();
  });
  req.once("end", () => clearTimeout(timer));
  req.once("error", () => clearTimeout(timer));
  req.resume();
}

/** Writes a fetch Response to a node:http response: its status and headers, then its body as it is produced. */
export async function writeFetchResponse(answer: Response, res: http.ServerResponse): Promise<void> {
  const head: Record<string, string | string[]> = {};
  answer.headers.forEach((value, key) => {
    if (key !== "set-cookie") head[key] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) head["set-cookie"] = cookies;
  res.writeHead(answer.status, head);
  if (!answer.body) return void res.end();
  const reader = answer.body.getReader();
  res.on("close", () => {
    if (!res.writableFinished) void reader.cancel().catch(() => undefined);
  });
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
    if (done || res.destroyed) break;
    if (!res.write(value))
      await new Promise<void>((resolve) => (res.once("drain", resolve), res.once("close", resolve)));
  }
  res.end();
}
