// The service's did:web identity: the DID named after SERVICE_BASE_URL's host, and the DID document served at
// /.well-known/did.json that binds the operator keys to that domain. JWS offers and receipts name the key that signed
// them by its per-key DID URL (`kid` = `#operator-key-<first 8 base58 characters>`), which names that key for good, so
// anyone can check them against the domain's own document before and after a rotation.
// The current key is listed twice, both assertion methods: as `#operator-key` (what stock clients resolve, and the kid
// of every JWS signed before per-key ids) and under its per-key id. Each retired key stays listed under its per-key id
// for what it signed before its retirement: in no verification relationship any more, and marked `revoked` with its
// retirement time (W3C Controlled Identifiers 1.0: proofs at or after that time are not to be verified; DID Core 1.0
// §9.9: signatures made after a revocation are to be treated as invalid).
import "server-only";
import bs58 from "bs58";
import type { Ed25519Keypair } from "./parse-secret-key";
import { decodeBase58, type RetiredOperatorKey } from "../verify";
import { OPERATOR_KEY_FRAGMENT, operatorKeyFragment } from "../verify/operator-jws";

/** The `@context` term for `revoked`, as the security vocabulary defines it (the DID and JWS 2020 contexts do not). */
const REVOKED_TERM = {
  revoked: { "@id": "https://w3id.org/security#revoked", "@type": "http://www.w3.org/2001/XMLSchema#dateTime" },
} as const;

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
export function serviceDidDocument(
  baseUrl: string,
  operatorKey: Ed25519Keypair,
  retired: readonly RetiredOperatorKey[] = [],
): DidDocument {
  return buildDidDocument(didWebOf(baseUrl), operatorKey.publicKey, retired);
}

/**
 * The per-key DID URL of the operator key `publicKeyBase58` of the service at `baseUrl`
 * (`did:web:<host>#operator-key-<first 8 base58 characters>`): the `kid` of every JWS that key signs, which keeps
 * naming it after it is retired.
 */
export function operatorKeyIdAt(baseUrl: string, publicKeyBase58: string): string {
  return `${didWebOf(baseUrl)}#${operatorKeyFragment(publicKeyBase58)}`;
}

/**
 * A DID document with the operator keys: the current key (`publicKey`) for assertions, as `#operator-key` and under its
 * per-key id; each retired key under its per-key id, marked `revoked` at its retirement and in no verification
 * relationship. Throws a TypeError for a retired key that is not base58 of 32 bytes (the caller's keys are parsed
 * already), and for two keys with one per-key id: the document names each key once.
 */
export function buildDidDocument(
  did: string,
  publicKey: Uint8Array,
  retired: readonly RetiredOperatorKey[] = [],
): DidDocument {
  const method = (id: string, key: Uint8Array, revoked?: number): VerificationMethod => ({
    id,
    type: "JsonWebKey2020",
    controller: did,
    publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key).toString("base64url") },
    ...(revoked === undefined ? {} : { revoked: new Date(revoked).toISOString() }),
  });
  const currentId = `${did}#${operatorKeyFragment(bs58.encode(publicKey))}`;
  const ids = new Set([currentId]);
  const retiredMethods = retired.map((r) => {
    const key = decodeBase58(r.pubkey, 32);
    if (!key) throw new TypeError(`buildDidDocument: ${r.pubkey.slice(0, 60)} is not a base58 32-byte public key`);
    const id = `${did}#${operatorKeyFragment(r.pubkey)}`;
    // SECURITY: one id for two keys would let a JWS of either be checked against the other's retirement.
    if (ids.has(id))
      throw new TypeError(
        `buildDidDocument: ${r.pubkey} has the per-key id ${id} of another operator key; make another key`,
      );
    ids.add(id);
    return method(id, key, r.retired_at);
  });
  const kid = `${did}#${OPERATOR_KEY_FRAGMENT}`;
  return {
    "@context": [
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/suites/jws-2020/v1",
      ...(retired.length > 0 ? [REVOKED_TERM] : []),
    ],
    id: did,
    verificationMethod: [method(kid, publicKey), method(currentId, publicKey), ...retiredMethods],
    assertionMethod: [kid, currentId],
  };
}
