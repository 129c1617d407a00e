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

/** Answers `req` with `route`'s Response, streamed. */
export async function serveFetchRoute(route: FetchRoute, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  // A body the route stopped reading (one past its size cap) is not drained: its connection goes once the answer is out.
  res.once("finish", () => {
    if (!req.complete) req.destroy();
  });
  await writeFetchResponse(await route(toFetchRequest(req)), res);
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
    if (!res.write(value)) await new Promise<void>((resolve) => (res.once("drain", resolve), res.once("close", resolve)));
  }
  res.end();
}
