// Serves fetch-style route handlers (Request → Response) over node:http, the way `next start` does, for tests that
// reach the service as a client would: the CLI over HTTP, the chaos suite's separate process.
import type http from "node:http";
import { writeFetchResponse, type FetchRoute } from "../../http/serve-fetch-route";

export type { FetchRoute };

/** Answers one node:http request (its body already read) with `route`. */
export async function answerWithRoute(
  route: FetchRoute,
  req: http.IncomingMessage,
  body: Buffer | string,
  res: http.ServerResponse,
): Promise<void> {
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === "string"),
    ...(req.method === "POST" ? { body: typeof body === "string" ? body : new Uint8Array(body) } : {}),
  });
  await writeFetchResponse(await route(request), res);
}
