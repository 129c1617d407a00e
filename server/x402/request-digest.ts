// What a payment buys, as one digest: the route and the request's deciding fields. The claim stores it; every later
// use of the payment (a retry after settlement_pending, an unserved retry, a takeover of a stale claim) must present
// the same digest, or it is refused and nothing moves. A payment's transaction is public once it lands, so the
// payment alone names no request: the digest is what binds it to the request that paid.
import "server-only";
import { canonicalJson, sha256Hex } from "../verify";
import type { NetworkId } from "../verify";

/**
 * A paid call's digest: the whole request body as validated, with its network resolved, under its route's name (the
 * paid-route registry's key), so "devnet" and an absent network are the same request, any other change is another, and
 * a payment made on one route is never served on another even for a body both routes take.
 */
export function callRequestDigest(route: string, body: object, network: NetworkId): string {
  return digestOf({ route, network, body: { ...plainJson(body), network: undefined } });
}

/** A chat call's digest (callRequestDigest under `chat`). */
export function chatRequestDigest(body: object, network: NetworkId): string {
  return callRequestDigest("chat", body, network);
}

/** A responses call's digest (callRequestDigest under `responses`). */
export function responsesRequestDigest(body: object, network: NetworkId): string {
  return callRequestDigest("responses", body, network);
}

/** A top-up's digest: its amount, network and beneficiary (null: the verified payer). */
export function topUpRequestDigest(facts: {
  amountUnits: bigint;
  network: NetworkId;
  beneficiary: string | null;
}): string {
  return digestOf({
    route: "topup",
    network: facts.network,
    amount_units: facts.amountUnits.toString(),
    beneficiary: facts.beneficiary,
  });
}

function digestOf(value: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(plainJson(value)));
}

/** The value as JSON carries it: absent fields dropped. */
function plainJson(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
