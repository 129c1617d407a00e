import { describe, expect, it } from "vitest";
import { createJWS, type JWSSigner, type SignedOffer, type SignedReceipt } from "@x402/extensions/offer-receipt";
import { serviceDidDocument } from "../keys/did-web-document";
import { signEd25519 } from "../keys/node-ed25519";
import { generateKeypair, type Ed25519Keypair } from "../keys/parse-secret-key";
import { checkX402Offer, checkX402Receipt } from "./check-x402-receipt";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jws = (header: unknown, payload: unknown = { version: 1 }) =>
  ({ format: "jws", signature: `${b64(header)}.${b64(payload)}.${"A".repeat(86)}` }) as SignedReceipt;
/** A fetch that must not be called. */
const noFetch = () => {
  throw new Error("fetched");
};

const ENDPOINT = "https://signet.example.com";
const current = generateKeypair();
const retired = generateKeypair();
const RETIRED_AT = 1_777_593_600_000;
const RETIRED_S = RETIRED_AT / 1000;
const document = serviceDidDocument(ENDPOINT, current, [{ pubkey: retired.publicKeyBase58, retired_at: RETIRED_AT }]);
/** Serves `document` at the DID's URL, and records what was fetched. */
function didServer(
  body: unknown = document,
  status = 200,
): { fetch: (url: string) => Promise<Response>; urls: string[] } {
  const urls: string[] = [];
  return { urls, fetch: async (url: string) => (urls.push(url), Response.json(body, { status })) };
}
const kidOf = (key: Ed25519Keypair) => `did:web:signet.example.com#operator-key-${key.publicKeyBase58.slice(0, 8)}`;
async function signed(key: Ed25519Keypair, payload: object): Promise<string> {
  const signer: JWSSigner = {
    kid: kidOf(key),
    format: "jws",
    algorithm: "EdDSA",
    sign: async (bytes) => Buffer.from(signEd25519(bytes, key.seed)).toString("base64url"),
  };
  return createJWS(payload, signer);
}
const receipt = (issuedAt: number, resourceUrl = `${ENDPOINT}/api/v1/chat/completions`) => ({
  version: 1,
  network: "eip155:84532",
  resourceUrl,
  payer: "0xp",
  issuedAt,
  transaction: "0xt",
});
const offer = (validUntil: number) => ({
  version: 1,
  resourceUrl: `${ENDPOINT}/api/v1/credits`,
  scheme: "exact",
  network: "eip155:84532",
  asset: "0xA",
  payTo: "0xB",
  amount: "1",
  validUntil,
});

describe("checkX402Receipt()", () => {
  it("rejects malformed input: a receipt in another format, or whose header cannot be read", async () => {
    expect(
      await checkX402Receipt(
        { format: "eip712", payload: {}, signature: "0x00" } as unknown as SignedReceipt,
        ENDPOINT,
        noFetch,
      ),
    ).toMatchObject({ ok: false, reason: "not_jws" });
    expect(
      await checkX402Receipt({ format: "jws", signature: "not-a-jws" } as SignedReceipt, ENDPOINT, noFetch),
    ).toMatchObject({ ok: false, reason: "unreadable" });
  });

  it("refuses a receipt signed by a key of another domain before resolving anything: any key verifies its own signature", async () => {
    const check = await checkX402Receipt(
      jws({ alg: "EdDSA", kid: "did:web:evil.example#operator-key" }),
      ENDPOINT,
      noFetch,
    );
    expect(check).toMatchObject({ ok: false, reason: "foreign_key" });
    expect(await checkX402Receipt(jws({ alg: "EdDSA" }), ENDPOINT, noFetch)).toMatchObject({
      ok: false,
      reason: "foreign_key",
    });
    // A DID that merely starts with the service's host is another domain.
    expect(
      await checkX402Receipt(
        jws({ alg: "EdDSA", kid: "did:web:signet.example.com.evil.example#k" }),
        ENDPOINT,
        noFetch,
      ),
    ).toMatchObject({ ok: false, reason: "foreign_key" });
  });

  it("resolves the kid through the DID document fetched from the service's domain", async () => {
    const did = didServer();
    const check = await checkX402Receipt(
      { format: "jws", signature: await signed(current, receipt(RETIRED_S + 60)) },
      ENDPOINT,
      did.fetch,
    );
    expect(check).toEqual({ ok: true, kid: kidOf(current), retiredAt: null, payload: receipt(RETIRED_S + 60) });
    expect(did.urls).toEqual(["https://signet.example.com/.well-known/did.json"]);
  });

  it("accepts a retired key's receipt issued before its retirement, and refuses one issued at it, saying why", async () => {
    const before = await checkX402Receipt(
      { format: "jws", signature: await signed(retired, receipt(RETIRED_S - 1)) },
      ENDPOINT,
      didServer().fetch,
    );
    expect(before).toMatchObject({ ok: true, kid: kidOf(retired), retiredAt: RETIRED_AT });
    const at = await checkX402Receipt(
      { format: "jws", signature: await signed(retired, receipt(RETIRED_S)) },
      ENDPOINT,
      didServer().fetch,
    );
    expect(at).toEqual({
      ok: false,
      reason: "signed_after_retirement",
      detail: `made by ${kidOf(retired)}, retired at 2026-05-01T00:00:00.000Z: the receipt's issuedAt 2026-05-01T00:00:00.000Z is not before its retirement`,
    });
  });

  it("refuses a receipt for another origin's resource", async () => {
    const check = await checkX402Receipt(
      { format: "jws", signature: await signed(current, receipt(1, "https://other.example/api/v1/chat/completions")) },
      ENDPOINT,
      didServer().fetch,
    );
    expect(check).toMatchObject({ ok: false, reason: "foreign_resource" });
  });

  it("says the DID document was unavailable, not that the receipt is bad, when it cannot be fetched", async () => {
    const check = await checkX402Receipt(
      { format: "jws", signature: await signed(current, receipt(1)) },
      ENDPOINT,
      didServer({}, 404).fetch,
    );
    expect(check).toMatchObject({
      ok: false,
      reason: "did_unavailable",
      detail: "https://signet.example.com/.well-known/did.json answered HTTP 404",
    });
  });
});

describe("checkX402Offer()", () => {
  it("accepts a retired key's offer that expired before its retirement, and refuses one still valid at it", async () => {
    const expired = await checkX402Offer(
      { format: "jws", acceptIndex: 0, signature: await signed(retired, offer(RETIRED_S - 1)) },
      ENDPOINT,
      didServer().fetch,
    );
    expect(expired).toMatchObject({
      ok: true,
      kid: kidOf(retired),
      retiredAt: RETIRED_AT,
      payload: offer(RETIRED_S - 1),
    });
    const live = await checkX402Offer(
      { format: "jws", acceptIndex: 0, signature: await signed(retired, offer(RETIRED_S + 240)) },
      ENDPOINT,
      didServer().fetch,
    );
    expect(live).toMatchObject({ ok: false, reason: "signed_after_retirement" });
  });

  it("rejects malformed input: an offer in another format", async () => {
    expect(
      await checkX402Offer(
        { format: "eip712", payload: offer(1), signature: "0x00" } as unknown as SignedOffer,
        ENDPOINT,
        noFetch,
      ),
    ).toMatchObject({ ok: false, reason: "not_jws" });
  });
});
