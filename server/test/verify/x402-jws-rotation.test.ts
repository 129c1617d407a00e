// Rotating the operator key, for the x402 signed offers and receipts (JWS, the offer-receipt extension): with key A the
// service signs a 402's offer and a paid answer's receipt; then B signs and A is retired once its last offer expired.
// Each JWS names the key that signed it (`#operator-key-<first 8 base58 characters>`), which the did:web document keeps
// listing, so A's offer and receipt still verify after the rotation: through our check (what `signet chat` and
// `signet topup` run) and through @x402/extensions' own functions resolving the service's DID over HTTP. B's verify
// too. A JWS that A signs at its retirement is refused by our check, which reads `revoked`; the package does not read
// it, and verifies the forgery.
import { KeyObject, webcrypto } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import bs58 from "bs58";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import {
  createJWS,
  extractJWSHeader,
  extractJWSPayload,
  extractOffersFromPaymentRequired,
  extractPublicKeyFromKid,
  extractReceiptFromResponse,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  type OfferPayload,
  type ReceiptPayload,
} from "@x402/extensions/offer-receipt";
import { checkX402Offer, checkX402Receipt } from "../../agent/check-x402-receipt";
import { signEd25519 } from "../../keys/node-ed25519";
import { generateKeypair, type Ed25519Keypair } from "../../keys/parse-secret-key";
import { setEnv } from "../support/env";
import { startServedStack, type HttpService, type ServedStack } from "../support/http-service";
import type { PaidStack } from "../support/paid-stack";

const A = generateKeypair();
const B = generateKeypair();
const seed = (key: Ed25519Keypair) => bs58.encode(key.seed);

let served: ServedStack;
let stack: PaidStack;
let service: HttpService;
const undo: (() => Promise<void>)[] = [];

beforeAll(async () => {
  served = await startServedStack({
    timing: "instant",
    env: { SERVICE_OPERATOR_SECRET_KEY: seed(A), X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" },
  });
  ({ stack, service } = served);
});
afterAll(async () => {
  for (const restore of undo.reverse()) await restore();
  await served?.close();
});

const CHAT = "/api/v1/chat/completions";
const chatBody = () => JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "rotate" }] });
const did = () => `did:web:${encodeURIComponent(new URL(service.url).host)}`;
const kidOf = (key: Ed25519Keypair) => `${did()}#operator-key-${key.publicKeyBase58.slice(0, 8)}`;

/** The first signed offer of the chat route's 402, as a stock client reads it. */
async function offerNow(): Promise<JWSSignedOffer> {
  const res = await fetch(`${service.url}${CHAT}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: chatBody(),
  });
  expect(res.status).toBe(402);
  const paymentRequired = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse(
    (name) => res.headers.get(name),
    await res.json(),
  );
  return extractOffersFromPaymentRequired(paymentRequired)[0] as JWSSignedOffer;
}

/** The signed receipt of a chat call a stock @x402/fetch client pays for. */
async function receiptNow(): Promise<JWSSignedReceipt> {
  const pay = stack.payingFetch(await stack.newAgent());
  const res = await pay(`${service.url}${CHAT}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: chatBody(),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return extractReceiptFromResponse(res) as JWSSignedReceipt;
}

/** A JWS by `key` naming `kid`, as the package's issuer makes one: what whoever holds `key` can sign. */
async function signedBy(key: Ed25519Keypair, kid: string, payload: object): Promise<string> {
  return createJWS(payload, {
    kid,
    format: "jws",
    algorithm: "EdDSA",
    sign: async (bytes) => Buffer.from(signEd25519(bytes, key.seed)).toString("base64url"),
  });
}

/** The Ed25519 public key (base58) the package's own did:web resolver finds for `kid`, over HTTP. */
async function resolvedByPackage(kid: string): Promise<string> {
  const key = await extractPublicKeyFromKid(kid);
  const jwk =
    key instanceof KeyObject
      ? key.export({ format: "jwk" })
      : await webcrypto.subtle.exportKey("jwk", key as webcrypto.CryptoKey);
  return bs58.encode(Buffer.from(jwk.x!, "base64url"));
}

describe("x402 offers and receipts across an operator key rotation", () => {
  let offerA: JWSSignedOffer;
  let receiptA: JWSSignedReceipt;
  let offerB: JWSSignedOffer;
  let receiptB: JWSSignedReceipt;
  let retiredAt: number;

  beforeAll(async () => {
    offerA = await offerNow();
    receiptA = await receiptNow();
    // A retires once the last offer it signed has expired (docs/receipts.md, "Rotating the operator key").
    retiredAt = (extractJWSPayload<OfferPayload>(offerA.signature).validUntil + 1) * 1000;
    undo.push(
      setEnv({
        SERVICE_OPERATOR_SECRET_KEY: seed(B),
        SERVICE_OPERATOR_RETIRED_KEYS: `${A.publicKeyBase58}@${retiredAt}`,
      }),
    );
    offerB = await offerNow();
    receiptB = await receiptNow();
  });

  it("names in each JWS the key that signed it, which the DID document keeps listing after the rotation", async () => {
    for (const [jws, key] of [
      [offerA, A],
      [receiptA, A],
      [offerB, B],
      [receiptB, B],
    ] as const)
      expect(extractJWSHeader(jws.signature)).toEqual({ alg: "EdDSA", kid: kidOf(key) });
    const document = (await (await fetch(`${service.url}/.well-known/did.json`)).json()) as {
      verificationMethod: { id: string; revoked?: string }[];
      assertionMethod: string[];
    };
    expect(document.assertionMethod).toEqual([`${did()}#operator-key`, kidOf(B)]);
    expect(document.verificationMethod.find((m) => m.id === kidOf(A))).toMatchObject({
      revoked: new Date(retiredAt).toISOString(),
    });
  });

  it("verifies A's offer and receipt, signed before its retirement, with our check: by the retired key, before its retirement", async () => {
    expect(await checkX402Offer(offerA, service.url)).toEqual({
      ok: true,
      kid: kidOf(A),
      retiredAt,
      payload: extractJWSPayload(offerA.signature),
    });
    expect(await checkX402Receipt(receiptA, service.url)).toEqual({
      ok: true,
      kid: kidOf(A),
      retiredAt,
      payload: extractJWSPayload(receiptA.signature),
    });
  });

  it("verifies A's offer and receipt with @x402/extensions' own functions, which resolve the kid through the DID document", async () => {
    expect(await resolvedByPackage(kidOf(A))).toBe(A.publicKeyBase58);
    expect(await verifyOfferSignatureJWS(offerA)).toEqual(extractJWSPayload(offerA.signature));
    expect(await verifyReceiptSignatureJWS(receiptA)).toMatchObject({
      resourceUrl: `${service.url}${CHAT}`,
      issuedAt: expect.any(Number),
    });
  });

  it("verifies B's offer and receipt with both, by the current key", async () => {
    expect(await checkX402Offer(offerB, service.url)).toMatchObject({ ok: true, kid: kidOf(B), retiredAt: null });
    expect(await checkX402Receipt(receiptB, service.url)).toMatchObject({ ok: true, kid: kidOf(B), retiredAt: null });
    expect(await resolvedByPackage(kidOf(B))).toBe(B.publicKeyBase58);
    // Stock clients that resolve `#operator-key` find the current key.
    expect(await resolvedByPackage(`${did()}#operator-key`)).toBe(B.publicKeyBase58);
    expect(await verifyOfferSignatureJWS(offerB)).toEqual(extractJWSPayload(offerB.signature));
    expect(await verifyReceiptSignatureJWS(receiptB)).toEqual(extractJWSPayload(receiptB.signature));
  });

  it("refuses an offer and a receipt A signs at its retirement, saying why; the package, which does not read `revoked`, verifies them", async () => {
    const at = new Date(retiredAt).toISOString();
    const receipt = {
      format: "jws",
      signature: await signedBy(A, kidOf(A), {
        ...extractJWSPayload<ReceiptPayload>(receiptA.signature),
        issuedAt: retiredAt / 1000,
      }),
    } as const;
    expect(await checkX402Receipt(receipt, service.url)).toEqual({
      ok: false,
      reason: "signed_after_retirement",
      detail: `made by ${kidOf(A)}, retired at ${at}: the receipt's issuedAt ${at} is not before its retirement`,
    });
    const offer = {
      format: "jws",
      acceptIndex: 0,
      signature: await signedBy(A, kidOf(A), {
        ...extractJWSPayload<OfferPayload>(offerA.signature),
        validUntil: retiredAt / 1000 + 240,
      }),
    } as const;
    expect(await checkX402Offer(offer, service.url)).toMatchObject({ ok: false, reason: "signed_after_retirement" });
    await expect(verifyReceiptSignatureJWS(receipt)).resolves.toMatchObject({ issuedAt: retiredAt / 1000 });
    await expect(verifyOfferSignatureJWS(offer)).resolves.toMatchObject({ validUntil: retiredAt / 1000 + 240 });
  });

  it("verifies with our check a receipt A signed before per-key ids (`#operator-key`), which now names B for the package", async () => {
    const legacy = {
      format: "jws",
      signature: await signedBy(A, `${did()}#operator-key`, extractJWSPayload<ReceiptPayload>(receiptA.signature)),
    } as const;
    expect(await checkX402Receipt(legacy, service.url)).toMatchObject({
      ok: true,
      kid: `${did()}#operator-key`,
      retiredAt,
    });
    await expect(verifyReceiptSignatureJWS(legacy)).rejects.toThrow();
  });
});
