// The service's did:web identity: the DID named after SERVICE_BASE_URL's host, and the DID document served at
// /.well-known/did.json that binds the operator key to that domain. JWS offers and receipts name this key by its DID
// URL (`kid`), so anyone can check them against the domain's own document.
import "server-only";
import type { Ed25519Keypair } from "../keys/parse-secret-key";

/** The fragment of the operator key's verification method: `did:web:<host>#operator-key`. */
export const OPERATOR_KEY_FRAGMENT = "operator-key";

/**
 * The did:web DID of a service at `baseUrl`: its host, with the port's colon percent-encoded as did:web requires
 * (`http://localhost:3000` → `did:web:localhost%3A3000`). Only the host counts: the document is served at the root.
 */
export function didWebOf(baseUrl: string): string {
  return `did:web:${encodeURIComponent(new URL(baseUrl).host)}`;
}

export interface DidDocument {
  "@context": string[];
  id: string;
  verificationMethod: { id: string; type: "JsonWebKey2020"; controller: string; publicKeyJwk: { kty: "OKP"; crv: "Ed25519"; x: string } }[];
  assertionMethod: string[];
}

/** This service's DID document: the operator key bound to the DID of `baseUrl`. */
export function serviceDidDocument(baseUrl: string, operatorKey: Ed25519Keypair): DidDocument {
  return buildDidDocument(didWebOf(baseUrl), operatorKey.publicKey);
}

/** The DID URL of the operator key of the service at `baseUrl`, the `kid` of every JWS the service signs. */
export function operatorKeyIdAt(baseUrl: string): string {
  return `${didWebOf(baseUrl)}#${OPERATOR_KEY_FRAGMENT}`;
}

/** A DID document with one Ed25519 verification method, usable to assert (sign) statements on the DID's behalf. */
export function buildDidDocument(did: string, publicKey: Uint8Array): DidDocument {
  const kid = `${did}#${OPERATOR_KEY_FRAGMENT}`;
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
    id: did,
    verificationMethod: [
      { id: kid, type: "JsonWebKey2020", controller: did, publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") } },
    ],
    assertionMethod: [kid],
  };
}
