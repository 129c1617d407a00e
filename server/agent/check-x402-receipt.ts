// The agent side of the x402 offer-receipt extension, for the CLI and the tests: checks a service's signed receipts
// and offers (JWS) as its spec asks. The service's DID document is fetched from its own domain (did:web, signer
// authorization); the signature is checked against the key the `kid` names there, a retired key only for what the
// JWS's own time places before the key's `revoked` (the package's resolver does not read `revoked`, so it is not used
// here); and the receipt or offer is for that service's resource.
import "server-only";
import {
  isJWSSignedOffer,
  isJWSSignedReceipt,
  type OfferPayload,
  type ReceiptPayload,
  type SignedOffer,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import { didWebOf } from "../keys/did-web-document";
import { verifyEd25519Node } from "../keys/node-ed25519";
import { fetchJsonBounded, VerifierFetchError, type FetchLike } from "../verify/json-rpc";
import { checkOperatorJws, didWebDocumentUrl, type OperatorJwsFailure, type X402JwsKind } from "../verify/operator-jws";

/** Why an x402 signed receipt or offer does not stand for the service. */
type X402SignedFailure =
  /** Not in the JWS format the service signs. */
  | "not_jws"
  /** The service's DID document could not be fetched (an outage, not a verdict on the JWS). */
  | "did_unavailable"
  /** Signed for a resource of another origin. */
  | "foreign_resource"
  | OperatorJwsFailure;

/** `retiredAt`: the retirement (Unix ms) of the retired key that signed, null when the current key did. */
type X402SignedCheck<Payload> =
  | { ok: true; kid: string; retiredAt: number | null; payload: Payload }
  | { ok: false; reason: X402SignedFailure; detail: string };

export type X402ReceiptCheck = X402SignedCheck<ReceiptPayload>;
export type X402OfferCheck = X402SignedCheck<OfferPayload>;

/** Checks `receipt` as issued by the service at `endpoint` (its origin), its DID document fetched with `fetchFn`. Never throws. */
export async function checkX402Receipt(
  receipt: SignedReceipt,
  endpoint: string,
  fetchFn: FetchLike = fetch,
): Promise<X402ReceiptCheck> {
  if (!isJWSSignedReceipt(receipt) || typeof receipt.signature !== "string")
    return { ok: false, reason: "not_jws", detail: "the receipt is not a JWS" };
  return (await checkX402Jws(receipt.signature, "receipt", endpoint, fetchFn)) as X402ReceiptCheck;
}

/** Checks a signed `offer` as made by the service at `endpoint` (its origin), its DID document fetched with `fetchFn`. Never throws. */
export async function checkX402Offer(
  offer: SignedOffer,
  endpoint: string,
  fetchFn: FetchLike = fetch,
): Promise<X402OfferCheck> {
  if (!isJWSSignedOffer(offer) || typeof offer.signature !== "string")
    return { ok: false, reason: "not_jws", detail: "the offer is not a JWS" };
  return (await checkX402Jws(offer.signature, "offer", endpoint, fetchFn)) as X402OfferCheck;
}

async function checkX402Jws(
  jws: string,
  kind: X402JwsKind,
  endpoint: string,
  fetchFn: FetchLike,
): Promise<X402SignedCheck<Record<string, unknown>>> {
  const did = didWebOf(endpoint);
  // The kid is read (and a foreign one refused) before anything is fetched: an empty document stands for none.
  const offline = checkOperatorJws(verifyEd25519Node, jws, kind, { id: did, verificationMethod: [] }, did);
  if (!offline.ok && (offline.reason === "unreadable" || offline.reason === "foreign_key")) return offline;
  let document: unknown;
  try {
    const url = didWebDocumentUrl(did);
    if (url === null)
      return { ok: false, reason: "did_unavailable", detail: `${did} is not a did:web DID this client can resolve` };
    document = await fetchJsonBounded(
      url,
      { headers: { accept: "application/did+json, application/json" }, redirect: "error" },
      { fetch: fetchFn },
      "operator_key_unavailable",
    );
  } catch (err) {
    return {
      ok: false,
      reason: "did_unavailable",
      detail: err instanceof VerifierFetchError ? err.message : `${did}'s DID document could not be fetched`,
    };
  }
  const check = checkOperatorJws(verifyEd25519Node, jws, kind, document, did);
  if (!check.ok) return check;
  const resourceUrl = check.payload.resourceUrl;
  if (
    typeof resourceUrl !== "string" ||
    !URL.canParse(resourceUrl) ||
    new URL(resourceUrl).origin !== new URL(endpoint).origin
  ) {
    return {
      ok: false,
      reason: "foreign_resource",
      detail: `the ${kind} is for ${String(resourceUrl)}, not a resource of ${new URL(endpoint).origin}`,
    };
  }
  return check;
}
