// The custom server's one job in front of Next: tell route code the TCP peer's address in a header that only this
// server writes. Route code reads the client IP from it (server/http/client-ip.ts), never from a header a client set.
// No "server-only" and no config here: bin/serve-next.ts loads this outside Next, without the react-server condition.
import http from "node:http";

/** Set by the custom server to the connection's remote address; any copy a client sends is dropped first. */
export const PEER_ADDRESS_HEADER = "x-signet-peer-address";

/** Replaces any client-sent peer-address header on `req` with the socket's own remote address. */
function stampPeerAddress(req: http.IncomingMessage): void {
  // SECURITY: a client may send this header itself (any case, several times); drop every copy, in both views Node
  // keeps of the headers, before writing the address the socket saw.
  delete req.headers[PEER_ADDRESS_HEADER];
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== PEER_ADDRESS_HEADER) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const address = req.socket.remoteAddress ?? "";
  if (address) {
    req.headers[PEER_ADDRESS_HEADER] = address;
    raw.push(PEER_ADDRESS_HEADER, address);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}

/**
 * The largest request head the front server takes. An x402 payment header from a stock client echoes the challenge's
 * extensions (discovery schemas, signed offers): about 12 KB, where Node's default of 16 KB for all headers together
 * leaves a client with cookies or a proxy's headers no room.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** A node:http server that stamps every request with its peer address, then hands it to `handle` (Next's handler). */
export function createPeerAddressServer(handle: (req: http.IncomingMessage, res: http.ServerResponse) => unknown): http.Server {
  return http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    stampPeerAddress(req);
    Promise.resolve(handle(req, res)).catch((err: unknown) => {
      console.error("signet: request handler failed", err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      // The body every error has (server/errors.ts errorBody), written out: this server runs outside Next's bundles.
      res.end('{"error":{"message":"internal error","type":"server_error","param":null,"code":"internal_error"}}');
    });
  });
}
