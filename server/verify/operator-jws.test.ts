import { describe, expect, it } from "vitest";
import {
  createJWS,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSigner,
} from "@x402/extensions/offer-receipt";
import { buildDidDocument } from "../keys/did-web-document";
import { signEd25519, verifyEd25519Node } from "../keys/node-ed25519";
import { generateKeypair, type Ed25519Keypair } from "../keys/parse-secret-key";
import { verifyEd25519Noble } from "./ed25519";
import { checkOperatorJws, didWebDocumentUrl, operatorKeyFragment, OPERATOR_KEY_ID_CHARS } from "./operator-jws";

const did = "did:web:signet.example.com";
const current = generateKeypair();
const retired = generateKeypair();
/** A's retirement, on a whole second, as Unix ms. */
const RETIRED_AT = 1_777_593_600_000;
const RETIRED_S = RETIRED_AT / 1000;
const document = buildDidDocument(did, current.publicKey, [
  { pubkey: retired.publicKeyBase58, retired_at: RETIRED_AT },
]);
const perKey = (key: Ed25519Keypair) => `${did}#operator-key-${key.publicKeyBase58.slice(0, 8)}`;
const LEGACY_KID = `${did}#operator-key`;

/** A JWS as the package's issuer makes it, by `key`, naming `kid`. */
function sign(key: Ed25519Keypair, kid: string, payload: object, alg = "EdDSA"): Promise<string> {
  const signer: JWSSigner = {
    kid,
    format: "jws",
    algorithm: alg,
    sign: async (bytes) => Buffer.from(signEd25519(bytes, key.seed)).toString("base64url"),
  };
  return createJWS(payload, signer);
}
const receipt = (issuedAt: unknown) => ({
  version: 1,
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  resourceUrl: "https://signet.example.com/api/v1/chat/completions",
  payer: "p",
  issuedAt,
  transaction: "tx",
});
const offer = (validUntil: unknown) => ({
  version: 1,
  resourceUrl: "https://signet.example.com/api/v1/chat/completions",
  scheme: "exact",
  network: "eip155:84532",
  asset: "0xA",
  payTo: "0xB",
  amount: "1000",
  validUntil,
});
const jwkOf = (id: string) => document.verificationMethod.find((m) => m.id === id)!.publicKeyJwk;

describe("operatorKeyFragment()", () => {
  it("names a key by its first 8 base58 characters", () => {
    expect(OPERATOR_KEY_ID_CHARS).toBe(8);
    expect(operatorKeyFragment("5bkWXfh1vDZThckWCKCsUBPmCThNc5pWPTjVsVuxM7B8")).toBe("operator-key-5bkWXfh1");
  });
});

describe("didWebDocumentUrl()", () => {
  it("reads did:web as did:web 1.0 does, with HTTP for localhost and 127.0.0.1 as @x402/extensions does", () => {
    expect(didWebDocumentUrl("did:web:signet.example.com")).toBe("https://signet.example.com/.well-known/did.json");
    expect(didWebDocumentUrl("did:web:signet.example.com%3A8443")).toBe(
      "https://signet.example.com:8443/.well-known/did.json",
    );
    expect(didWebDocumentUrl("did:web:localhost%3A3000")).toBe("http://localhost:3000/.well-known/did.json");
    expect(didWebDocumentUrl("did:web:127.0.0.1%3A49152")).toBe("http://127.0.0.1:49152/.well-known/did.json");
    expect(didWebDocumentUrl("did:web:example.com:user:alice")).toBe("https://example.com/user/alice/did.json");
  });

  it.each([
    ["another method", "did:key:z6Mk"],
    ["no host", "did:web:"],
    ["a fragment", "did:web:a.example#k"],
    ["a bad escape", "did:web:%E0%A4%A"],
    ["a host with a path in it", "did:web:a.example%2Fevil"],
  ])("rejects malformed input: %s", (_label, text) => expect(didWebDocumentUrl(text)).toBeNull());
});

describe("checkOperatorJws()", () => {
  it("accepts a JWS by the current key under its per-key id or `#operator-key`, whenever it was made", async () => {
    for (const kid of [perKey(current), LEGACY_KID]) {
      const jws = await sign(current, kid, receipt(RETIRED_S + 86_400));
      for (const backend of [verifyEd25519Node, verifyEd25519Noble]) {
        expect(checkOperatorJws(backend, jws, "receipt", document, did)).toEqual({
          ok: true,
          kid,
          retiredAt: null,
          payload: receipt(RETIRED_S + 86_400),
        });
      }
    }
  });

  it("accepts a retired key's receipt issued before its retirement, under its per-key id, as the package verifies it", async () => {
    const jws = await sign(retired, perKey(retired), receipt(RETIRED_S - 1));
    expect(checkOperatorJws(verifyEd25519Node, jws, "receipt", document, did)).toMatchObject({
      ok: true,
      kid: perKey(retired),
      retiredAt: RETIRED_AT,
    });
    expect(await verifyReceiptSignatureJWS({ format: "jws", signature: jws }, jwkOf(perKey(retired)))).toEqual(
      receipt(RETIRED_S - 1),
    );
  });

  it("refuses a retired key's receipt issued at or after its retirement, saying why", async () => {
    for (const issuedAt of [RETIRED_S, RETIRED_S + 1]) {
      const jws = await sign(retired, perKey(retired), receipt(issuedAt));
      expect(checkOperatorJws(verifyEd25519Node, jws, "receipt", document, did)).toEqual({
        ok: false,
        reason: "signed_after_retirement",
        detail: `made by ${perKey(retired)}, retired at 2026-05-01T00:00:00.000Z: the receipt's issuedAt ${new Date(issuedAt * 1000).toISOString()} is not before its retirement`,
      });
    }
  });

  it("places an offer, which carries no issue time, by its validUntil: a retired key's offer counts only if it expired before the retirement", async () => {
    const expired = await sign(retired, perKey(retired), offer(RETIRED_S - 1));
    expect(checkOperatorJws(verifyEd25519Node, expired, "offer", document, did)).toMatchObject({
      ok: true,
      retiredAt: RETIRED_AT,
    });
    expect(await verifyOfferSignatureJWS({ format: "jws", signature: expired }, jwkOf(perKey(retired)))).toEqual(
      offer(RETIRED_S - 1),
    );
    const live = await sign(retired, perKey(retired), offer(RETIRED_S + 120));
    expect(checkOperatorJws(verifyEd25519Node, live, "offer", document, did)).toMatchObject({
      ok: false,
      reason: "signed_after_retirement",
      detail: expect.stringContaining("the offer's validUntil 2026-05-01T00:02:00.000Z is not before its retirement"),
    });
  });

  it("refuses a retired key's JWS without a time to place it", async () => {
    for (const issuedAt of [undefined, "1777593599", 1.5, -1]) {
      const jws = await sign(retired, perKey(retired), receipt(issuedAt));
      expect(checkOperatorJws(verifyEd25519Node, jws, "receipt", document, did)).toMatchObject({
        ok: false,
        reason: "timestamp_missing",
      });
    }
  });

  it("checks a JWS from before per-key ids (`#operator-key`) against the retired keys too, within their retirements", async () => {
    const before = await sign(retired, LEGACY_KID, receipt(RETIRED_S - 60));
    expect(checkOperatorJws(verifyEd25519Node, before, "receipt", document, did)).toMatchObject({
      ok: true,
      kid: LEGACY_KID,
      retiredAt: RETIRED_AT,
    });
    const after = await sign(retired, LEGACY_KID, receipt(RETIRED_S));
    expect(checkOperatorJws(verifyEd25519Node, after, "receipt", document, did)).toMatchObject({
      ok: false,
      reason: "signed_after_retirement",
    });
  });

  it("refuses a key's signature under another key's id: a per-key id names one key only", async () => {
    const jws = await sign(retired, perKey(current), receipt(RETIRED_S - 60));
    expect(checkOperatorJws(verifyEd25519Node, jws, "receipt", document, did)).toMatchObject({
      ok: false,
      reason: "signature_invalid",
    });
    const stranger = await sign(generateKeypair(), LEGACY_KID, receipt(RETIRED_S - 60));
    expect(checkOperatorJws(verifyEd25519Node, stranger, "receipt", document, did)).toMatchObject({
      ok: false,
      reason: "signature_invalid",
    });
  });

  it("refuses a kid of another DID before reading the document", async () => {
    const jws = await sign(current, "did:web:signet.example.com.evil.example#operator-key", receipt(1));
    expect(checkOperatorJws(verifyEd25519Node, jws, "receipt", document, did)).toMatchObject({
      ok: false,
      reason: "foreign_key",
    });
  });

  it("refuses a kid the document does not list as an assertion key, current or retired", async () => {
    const unlisted = await sign(current, `${did}#operator-key-11111111`, receipt(1));
    expect(checkOperatorJws(verifyEd25519Node, unlisted, "receipt", document, did)).toMatchObject({
      ok: false,
      reason: "unknown_key",
    });
    // Listed, but neither an assertion method nor revoked: not a key the service signs with.
    const idle = { ...document, assertionMethod: [] };
    expect(
      checkOperatorJws(verifyEd25519Node, await sign(current, perKey(current), receipt(1)), "receipt", idle, did),
    ).toMatchObject({ ok: false, reason: "unknown_key" });
    // A `revoked` that cannot be read is never read as "not revoked".
    const unreadable = {
      ...document,
      verificationMethod: document.verificationMethod.map((m) => (m.revoked ? { ...m, revoked: "May 1st" } : m)),
    };
    expect(
      checkOperatorJws(verifyEd25519Node, await sign(retired, perKey(retired), receipt(1)), "receipt", unreadable, did),
    ).toMatchObject({ ok: false, reason: "unknown_key" });
  });

  it("rejects malformed input: not a JWS, an unreadable segment, another DID's document, another algorithm", async () => {
    const good = await sign(current, perKey(current), receipt(1));
    const [h, p, s] = good.split(".") as [string, string, string];
    for (const jws of [
      42,
      null,
      "",
      "a.b",
      `${h}.${p}`,
      `${h}.${p}.${s}.x`,
      `${h}.${p}.${s}=`,
      `${h}.!!.${s}`,
      `${Buffer.from("[1]").toString("base64url")}.${p}.${s}`,
    ]) {
      expect(checkOperatorJws(verifyEd25519Node, jws, "receipt", document, did)).toMatchObject({
        ok: false,
        reason: "unreadable",
      });
    }
    expect(
      checkOperatorJws(verifyEd25519Node, good, "receipt", { ...document, id: "did:web:other.example" }, did),
    ).toMatchObject({ ok: false, reason: "unknown_key" });
    expect(checkOperatorJws(verifyEd25519Node, good, "receipt", "not a document", did)).toMatchObject({
      ok: false,
      reason: "unknown_key",
    });
    expect(
      checkOperatorJws(
        verifyEd25519Node,
        await sign(current, perKey(current), receipt(1), "ES256"),
        "receipt",
        document,
        did,
      ),
    ).toMatchObject({ ok: false, reason: "signature_invalid" });
    const otherSignature = (await sign(current, perKey(current), receipt(2))).split(".")[2];
    expect(checkOperatorJws(verifyEd25519Node, `${h}.${p}.${otherSignature}`, "receipt", document, did)).toMatchObject({
      ok: false,
      reason: "signature_invalid",
    });
  });
});
