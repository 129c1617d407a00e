import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { buildDidDocument, didWebOf, OPERATOR_KEY_FRAGMENT } from "./did-web-document";

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

describe("buildDidDocument()", () => {
  it("publishes the key as an Ed25519 JWK under the DID's operator-key fragment, for assertions", () => {
    const key = generateKeypair();
    const doc = buildDidDocument("did:web:signet.example.com", key.publicKey);
    const kid = `did:web:signet.example.com#${OPERATOR_KEY_FRAGMENT}`;
    expect(doc.id).toBe("did:web:signet.example.com");
    expect(doc.assertionMethod).toEqual([kid]);
    expect(doc.verificationMethod).toEqual([{ id: kid, type: "JsonWebKey2020", controller: doc.id, publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: expect.any(String) } }]);
    expect(new Uint8Array(Buffer.from(doc.verificationMethod[0]!.publicKeyJwk.x, "base64url"))).toEqual(key.publicKey);
  });
});

describe("buildDidDocument() after key rotations", () => {
  const did = "did:web:signet.example.com";
  const current = generateKeypair();
  const old = generateKeypair();
  const RETIRED_AT = 1_777_593_600_000;
  const doc = buildDidDocument(did, current.publicKey, [{ pubkey: old.publicKeyBase58, retired_at: RETIRED_AT }]);

  it("keeps the current key the one assertion method, under the name JWS carry", () => {
    expect(doc.assertionMethod).toEqual([`${did}#${OPERATOR_KEY_FRAGMENT}`]);
    expect(doc.verificationMethod[0]).toEqual({ id: `${did}#${OPERATOR_KEY_FRAGMENT}`, type: "JsonWebKey2020", controller: did, publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(current.publicKey).toString("base64url") } });
  });

  it("lists a retired key under its own name, marked revoked at its retirement, in no verification relationship", () => {
    const id = `${did}#${OPERATOR_KEY_FRAGMENT}-${old.publicKeyBase58}`;
    expect(doc.verificationMethod[1]).toEqual({ id, type: "JsonWebKey2020", controller: did, publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(old.publicKey).toString("base64url") }, revoked: "2026-05-01T00:00:00.000Z" });
    expect(doc.assertionMethod).not.toContain(id);
  });

  it("defines the `revoked` term in its context only when a key is retired", () => {
    expect(doc["@context"]).toEqual([
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/suites/jws-2020/v1",
      { revoked: { "@id": "https://w3id.org/security#revoked", "@type": "http://www.w3.org/2001/XMLSchema#dateTime" } },
    ]);
    expect(buildDidDocument(did, current.publicKey)["@context"]).toEqual(["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"]);
  });

  it("rejects malformed input: a retired key that is not base58 of 32 bytes", () => {
    expect(() => buildDidDocument(did, current.publicKey, [{ pubkey: "abc", retired_at: RETIRED_AT }])).toThrow(TypeError);
  });
});
