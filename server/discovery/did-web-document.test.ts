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
