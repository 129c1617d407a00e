// The agent side of the x402 offer-receipt extension, for the CLI and the tests: checks a service's signed receipt
// (JWS) as its spec asks, with the package's client utilities. The signature against the key its `kid` names, resolved
// through did:web over HTTP(S); that key's DID is the service's own domain (signer authorization); and the receipt is
// for that service's resource.
import "server-only";
import { extractJWSHeader, isJWSSignedReceipt, verifyReceiptSignatureJWS, type ReceiptPayload, type SignedReceipt } from "@x402/extensions/offer-receipt";
import { didWebOf } from "../discovery/did-web-document";

export type X402ReceiptCheck =
  | { ok: true; kid: string; payload: ReceiptPayload }
  | { ok: false; reason: "not_jws" | "unreadable" | "foreign_key" | "foreign_resource" | "bad_signature"; detail: string };

/** Checks `receipt` as issued by the service at `endpoint` (its origin). Never throws. */
export async function checkX402Receipt(receipt: SignedReceipt, endpoint: string): Promise<X402ReceiptCheck> {
  if (!isJWSSignedReceipt(receipt) || typeof receipt.signature !== "string") return { ok: false, reason: "not_jws", detail: "the receipt is not a JWS" };
  let kid: string;
  try {
    kid = extractJWSHeader(receipt.signature).kid ?? "";
  } catch {
    return { ok: false, reason: "unreadable", detail: "the JWS header cannot be read" };
  }
  const did = didWebOf(endpoint);
  // SECURITY: any key verifies its own signature; only the service domain's own DID may speak for the service.
  if (!kid.startsWith(`${did}#`)) return { ok: false, reason: "foreign_key", detail: `signed by ${kid || "no key id"}, not a key of ${did}` };
  let payload: ReceiptPayload;
  try {
    payload = await verifyReceiptSignatureJWS(receipt);
  } catch (err) {
    return { ok: false, reason: "bad_signature", detail: err instanceof Error ? err.message.slice(0, 200) : "the signature does not verify" };
  }
  if (typeof payload.resourceUrl !== "string" || !URL.canParse(payload.resourceUrl) || new URL(payload.resourceUrl).origin !== new URL(endpoint).origin) {
    return { ok: false, reason: "foreign_resource", detail: `the receipt is for ${String(payload.resourceUrl)}, not a resource of ${new URL(endpoint).origin}` };
  }
  return { ok: true, kid, payload };
}
