// The service's did:web identity: the DID named after SERVICE_BASE_URL's host, and the DID document served at
// /.well-known/did.json that binds the operator keys to that domain. JWS offers and receipts name their key by its DID
// URL (`kid`), so anyone can check them against the domain's own document.
// The current key is `#operator-key`, the assertion method. Each retired key stays listed for what it signed before its
// retirement, as `#operator-key-<base58 key>`: in no verification relationship any more, and marked `revoked` with its
// retirement time (W3C Controlled Identifiers 1.0: proofs at or after that time are not to be verified; DID Core 1.0
// §9.9: signatures made after a revocation are to be treated as invalid).
import "server-only";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { decodeBase58, type RetiredOperatorKey } from "../verify";

/** The fragment of the current operator key's verification method: `did:web:<host>#operator-key`. */
export const OPERATOR_KEY_FRAGMENT = "operator-key";

/** The `@context` term for `revoked`, as the security vocabulary defines it (the DID and JWS 2020 contexts do not). */
const REVOKED_TERM = { revoked: { "@id": "https://w3id.org/security#revoked", "@type": "http://www.w3.org/2001/XMLSchema#dateTime" } } as const;

/**
 * The did:web DID of a service at `baseUrl`: its host, with the port's colon percent-encoded as did:web requires
 * (`http://localhost:3000` → `did:web:localhost%3A3000`). Only the host counts: the document is served at the root.
 */
export function didWebOf(baseUrl: string): string {
  return `did:web:${encodeURIComponent(new URL(baseUrl).host)}`;
}

interface VerificationMethod {
  id: string;
  type: "JsonWebKey2020";
  controller: string;
  publicKeyJwk: { kty: "OKP"; crv: "Ed25519"; x: string };
  /** A retired key's retirement, ISO 8601 UTC: proofs made at or after it do not count. */
  revoked?: string;
}

export interface DidDocument {
  "@context": (string | typeof REVOKED_TERM)[];
  id: string;
  verificationMethod: VerificationMethod[];
  assertionMethod: string[];
}

/** This service's DID document: the operator key, and the keys it retired, bound to the DID of `baseUrl`. */
export function serviceDidDocument(baseUrl: string, operatorKey: Ed25519Keypair, retired: readonly RetiredOperatorKey[] = []): DidDocument {
  return buildDidDocument(didWebOf(baseUrl), operatorKey.publicKey, retired);
}

/** The DID URL of the current operator key of the service at `baseUrl`, the `kid` of every JWS the service signs. */
export function operatorKeyIdAt(baseUrl: string): string {
  return `${didWebOf(baseUrl)}#${OPERATOR_KEY_FRAGMENT}`;
}

/** The DID URL of a retired operator key: `<did>#operator-key-<base58 key>`. */
function retiredOperatorKeyId(did: string, publicKeyBase58: string): string {
  return `${did}#${OPERATOR_KEY_FRAGMENT}-${publicKeyBase58}`;
}

/**
 * A DID document with a verification method per operator key: the current key (`publicKey`) for assertions, each
 * retired key marked `revoked` at its retirement and in no verification relationship. Throws a TypeError for a
 * retired key that is not base58 of 32 bytes (the caller's keys are parsed already).
 */
export function buildDidDocument(did: string, publicKey: Uint8Array, retired: readonly RetiredOperatorKey[] = []): DidDocument {
  const method = (id: string, key: Uint8Array, revoked?: number): VerificationMethod => ({
    id,
    type: "JsonWebKey2020",
    controller: did,
    publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key).toString("base64url") },
    ...(revoked === undefined ? {} : { revoked: new Date(revoked).toISOString() }),
  });
  const retiredMethods = retired.map((r) => {
    const key = decodeBase58(r.pubkey, 32);
    if (!key) throw new TypeError(`buildDidDocument: ${r.pubkey.slice(0, 60)} is not a base58 32-byte public key`);
    return method(retiredOperatorKeyId(did, r.pubkey), key, r.retired_at);
  });
  const kid = `${did}#${OPERATOR_KEY_FRAGMENT}`;
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1", ...(retired.length > 0 ? [REVOKED_TERM] : [])],
    id: did,
    verificationMethod: [method(kid, publicKey), ...retiredMethods],
    assertionMethod: [kid],
  };
}
