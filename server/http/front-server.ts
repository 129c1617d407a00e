// The front server's node:http server (bin/start/serve-next.ts puts it in front of Next): what every request passes before a
// route sees it. It bounds how long a client may take to send a request, serves origin-form targets only, makes every
// answer refuse framing, and stamps the connection's own address (server/http/peer-address.ts).
// No "server-only" and no config here: bin/start/serve-next.ts loads this outside Next.
import http from "node:http";
import { guardFraming } from "./frame-guard";
import { stampPeerAddress } from "./peer-address";
import { isOriginForm } from "./request-target";

/**
 * The largest request head the front server takes. An x402 payment header from a stock client echoes the challenge's
 * extensions (discovery schemas, signed offers): about 12 KB, where Node's default of 16 KB for all headers together
 * leaves a client with cookies or a proxy's headers no room.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/**
 * How long a client may take to send a request's head (Node's `headersTimeout`, counted from the connection's opening,
 * or from the request's first byte on a kept-alive connection), then it gets 408 and the connection is closed. A
 * browser, an SDK or a proxy sends a head of at most MAX_HEADER_BYTES in well under a second; one trickled byte by byte,
 * or a connection that sends nothing, only holds a socket (Node's default lets it do so for 60 s).
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * How long a client may take from a request's first byte to the end of its body (Node's `requestTimeout`, the same in
 * Node 20, 22 and 24): it bounds receiving the REQUEST, not sending the answer. Its clock stops once the body is in (for
 * a GET, at the end of the head), so an answer streamed for minutes (Server-Sent Events) after its request arrived is
 * never cut; a handler that starts answering before the whole body arrived is cut at this bound like any other request.
 * The largest body a route takes (1 MB, /api/verify) arrives within it at 34 KB/s; Node's default waits 300 s.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * How long a kept-alive connection may sit idle after an answer before it is closed (Node closes the socket 1 s after
 * this, and advertises this in `Keep-Alive: timeout`). Node 20 to 24's default, stated so that a newer Node's longer
 * default does not lengthen it. A load balancer in front must close its idle connections to this server sooner, or it
 * may send on one this server is closing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * How often Node looks for requests past the two bounds above (`connectionsCheckingInterval`): one is cut up to this
 * long after its bound. Node's default (30 s) would let a trickled head hold its connection four times its bound.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** How long a client may take to send a request, and to come back on a kept-alive connection. */
export interface FrontServerLimits {
  headersTimeoutMs: number;
  /** At least headersTimeoutMs: Node refuses a head bound longer than the request's. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  timeoutCheckIntervalMs: number;
}

/** The front server's limits in production and dev; tests pass small ones. */
export const FRONT_SERVER_LIMITS: FrontServerLimits = {
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
  timeoutCheckIntervalMs: TIMEOUT_CHECK_INTERVAL_MS,
};

/** What a request whose target is not a path is told. */
export const NOT_ORIGIN_FORM_MESSAGE =
  "the request target must be a path, such as /api/v1/models (origin-form): this server is not a proxy";

// The bodies every error has (server/errors/index.ts errorBody), written out: this server runs outside Next's bundles, and
// errors.ts is server-only. front-server.test.ts holds them to errorBody.
/** 400 invalid_request for a target that is not origin-form. */
export const NOT_ORIGIN_FORM_BODY = JSON.stringify({
  error: { message: NOT_ORIGIN_FORM_MESSAGE, type: "invalid_request_error", param: null, code: "invalid_request" },
});
/** 500 internal_error for a handler that threw: its message never reaches the client. */
export const INTERNAL_ERROR_BODY = JSON.stringify({
  error: { message: "internal error", type: "server_error", param: null, code: "internal_error" },
});

/**
 * The front server: a node:http server with `limits`, that refuses a request target other than a path with 400
 * invalid_request, makes every answer refuse framing (server/http/frame-guard.ts), stamps the peer's address, then
 * hands the request to `handle` (Next's handler); a handler that throws answers 500 internal_error.
 */
export function createFrontServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
  limits: FrontServerLimits = FRONT_SERVER_LIMITS,
): http.Server {
  const options: http.ServerOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
  };
  return http.createServer(options, (req, res) => {
    guardFraming(res);
    if (!isOriginForm(req.url)) {
      res.writeHead(400, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(NOT_ORIGIN_FORM_BODY),
      });
      res.end(NOT_ORIGIN_FORM_BODY);
      return;
    }
    stampPeerAddress(req);
    Promise.resolve(handle(req, res)).catch((err: unknown) => {
      console.error("signet: request handler failed", err);
      if (!res.headersSent)
        res.writeHead(500, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(INTERNAL_ERROR_BODY),
        });
      res.end(INTERNAL_ERROR_BODY);
    });
  });
}
