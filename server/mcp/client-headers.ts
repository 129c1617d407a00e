// Who sent an MCP request, as the HTTP routes its tools call read it.
import { PEER_ADDRESS_HEADER } from "../http/peer-address";

/**
 * The headers of the MCP request that say who sent it (the peer address, X-Forwarded-For): the tool call's route reads
 * them as its own request's, so per-client limits count an MCP caller as the client it is.
 */
export function clientHeaders(request: Headers): Headers {
  const out = new Headers();
  for (const name of [PEER_ADDRESS_HEADER, "x-forwarded-for"]) {
    const value = request.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}
