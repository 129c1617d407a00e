// A POST to a paid route with no body and no payment: a crawler's probe (agentcash's, x402scan's) asking whether the
// route is paid and what it costs. It is answered like any unpaid call, with the route's 402 challenge, by reading it
// as the route's example call on the default network. A probe that carries a payment, or any non-empty body, is read
// as sent: an empty body with a payment header, or a malformed body, stays a 400.
import "server-only";
import type { PaidRoute } from "../http/paid-route-paths";
import { decodeBodyText, parseJsonText } from "../http/read-json-body";
import { PAID_ROUTE_EXAMPLES } from "./paid-route-examples";
import { readPaymentHeader } from "./payment-headers";

/** The body bytes a paid route reads: `rawBody` as sent, or the example call when it is an unpaid probe. */
function paidBodyBytes(route: PaidRoute, headers: Headers, rawBody: Uint8Array): Uint8Array {
  if (rawBody.length > 0 || readPaymentHeader(headers) !== null) return rawBody;
  const { network: _network, ...call } = PAID_ROUTE_EXAMPLES[route].input;
  return new TextEncoder().encode(JSON.stringify(call));
}

/** A paid route's body as JSON: as sent, or the example call for an unpaid probe; throws the 400 of a bad body. */
export function paidJson(route: PaidRoute, headers: Headers, rawBody: Uint8Array): unknown {
  return parseJsonText(decodeBodyText(paidBodyBytes(route, headers, rawBody)));
}
