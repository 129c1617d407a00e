// The front server's first job in front of Next (server/http/front-server.ts): tell route code the TCP peer's address
// in a header that only this server writes. Route code reads the client IP from it (server/http/client-ip.ts), never
// from a header a client set.
// No "server-only" and no config here: bin/start/serve-next.ts loads this outside Next, without the react-server condition.
import type http from "node:http";

/** Set by the custom server to the connection's remote address; any copy a client sends is dropped first. */
export const PEER_ADDRESS_HEADER = "x-signet-peer-address";

/** Replaces any client-sent peer-address header on `req` with the socket's own remote address. */
export function stampPeerAddress(req: http.IncomingMessage): void {
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
