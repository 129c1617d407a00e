import { describe, expect, it } from "vitest";
import { generateKeypair } from "./parse-secret-key";
import { OPERATOR_KEY_FRAGMENT } from "../verify/operator-jws";
import { buildDidDocument, didWebOf, operatorKeyIdAt } from "./did-web-document";

describe("didWebOf()", () => {
  it("names the host, percent-encoding a port's colon as did:web requires", () => {
    expect(didWebOf("https://signet.example.com")).toBe("did:web:signet.example.com");
    expect(didWebOf("http://localhost:3000")).toBe("did:web:localhost%3A3000");
    expect(didWebOf("http://127.0.0.1:49152")).toBe("did:web:127.0.0.1%3A49152");
    expect(didWebOf("https://Signet.Example.com:8443/")).toBe("did:web:signet.example.com%3A8443");
  });

  it("leaves out a default port", () => {
    expect(didWebOf("https://signet.example.com:443")).toBe("did:web:signet.example.com");
  });

  it("rejects malformed input: not a URL", () => {
    expect(() => didWebOf("signet.example.com")).toThrow();
  });
});

describe("operatorKeyIdAt()", () => {
  it("names a key by its first 8 base58 characters under the service's DID", () => {
    const key = generateKeypair();
    expect(operatorKeyIdAt("http://localhost:3000", key.publicKeyBase58)).toBe(
      `did:web:localhost%3A3000#operator-key-${key.publicKeyBase58.slice(0, 8)}`,
    );
  });
});

describe("buildDidDocument()", () => {
  it("publishes the key as an Ed25519 JWK for assertions, as `#operator-key` and under its per-key id", () => {
    const key = generateKeypair();
    const doc = buildDidDocument("did:web:signet.example.com", key.publicKey);
    const kid = `did:web:signet.example.com#${OPERATOR_KEY_FRAGMENT}`;
    const own = `did:web:signet.example.com#${OPERATOR_KEY_FRAGMENT}-${key.publicKeyBase58.slice(0, 8)}`;
    const method = (id: string) => ({
      id,
      type: "JsonWebKey2020",
      controller: doc.id,
      publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key.publicKey).toString("base64url") },
    });
    expect(doc.id).toBe("did:web:signet.example.com");
    expect(doc.assertionMethod).toEqual([kid, own]);
    expect(doc.verificationMethod).toEqual([method(kid), method(own)]);
  });
});

describe("buildDidDocument() after key rotations", () => {
  const did = "did:web:signet.example.com";
  const current = generateKeypair();
  const old = generateKeypair();
  const RETIRED_AT = 1_777_593_600_000;
  const doc = buildDidDocument(did, current.publicKey, [{ pubkey: old.publicKeyBase58, retired_at: RETIRED_AT }]);
  const jwk = (key: Uint8Array) => ({ kty: "OKP", crv: "Ed25519", x: Buffer.from(key).toString("base64url") });

  it("keeps the current key the assertion method, as `#operator-key` and under its per-key id", () => {
    const own = `${did}#${OPERATOR_KEY_FRAGMENT}-${current.publicKeyBase58.slice(0, 8)}`;
    expect(doc.assertionMethod).toEqual([`${did}#${OPERATOR_KEY_FRAGMENT}`, own]);
    expect(doc.verificationMethod.slice(0, 2)).toEqual([
      {
        id: `${did}#${OPERATOR_KEY_FRAGMENT}`,
        type: "JsonWebKey2020",
        controller: did,
        publicKeyJwk: jwk(current.publicKey),
      },
      { id: own, type: "JsonWebKey2020", controller: did, publicKeyJwk: jwk(current.publicKey) },
    ]);
  });

  it("lists a retired key under the per-key id its JWS carry, marked revoked at its retirement, in no verification relationship", () => {
    const id = `${did}#${OPERATOR_KEY_FRAGMENT}-${old.publicKeyBase58.slice(0, 8)}`;
    expect(doc.verificationMethod[2]).toEqual({
      id,
      type: "JsonWebKey2020",
      controller: did,
      publicKeyJwk: jwk(old.publicKey),
      revoked: "2026-05-01T00:00:00.000Z",
    });
    expect(doc.verificationMethod).toHaveLength(3);
    expect(doc.assertionMethod).not.toContain(id);
  });

  it("defines the `revoked` term in its context only when a key is retired", () => {
    expect(doc["@context"]).toEqual([
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/suites/jws-2020/v1",
      { revoked: { "@id": "https://w3id.org/security#revoked", "@type": "http://www.w3.org/2001/XMLSchema#dateTime" } },
    ]);
    expect(buildDidDocument(did, current.publicKey)["@context"]).toEqual([
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/suites/jws-2020/v1",
    ]);
  });

  it("rejects malformed input: a retired key that is not base58 of 32 bytes", () => {
    expect(() => buildDidDocument(did, current.publicKey, [{ pubkey: "abc", retired_at: RETIRED_AT }])).toThrow(
      TypeError,
    );
  });

  it("refuses two keys with one per-key id, rather than publish an id that names either", () => {
    // Another 32-byte key whose base58 form starts with the same 8 characters as the current key's.
    const twin = current.publicKeyBase58.slice(0, -1) + (current.publicKeyBase58.endsWith("2") ? "3" : "2");
    expect(() => buildDidDocument(did, current.publicKey, [{ pubkey: twin, retired_at: RETIRED_AT }])).toThrow(
      /per-key id/,
    );
    expect(() =>
      buildDidDocument(did, current.publicKey, [
        { pubkey: old.publicKeyBase58, retired_at: 1 },
        {
          pubkey: `${old.publicKeyBase58.slice(0, -1)}${old.publicKeyBase58.endsWith("2") ? "3" : "2"}`,
          retired_at: 2,
        },
      ]),
    ).toThrow(/per-key id/);
  });
});
