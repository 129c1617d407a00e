import { afterEach, describe, expect, it, vi } from "vitest";
import type { PaymentRequiredContext, PaymentRequirements } from "@x402/core/types";
import {
  extractJWSHeader,
  extractOfferPayload,
  extractReceiptPayload,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
} from "@x402/extensions/offer-receipt";
import { serviceDidDocument } from "../keys/did-web-document";
import { generateKeypair } from "../keys/parse-secret-key";
import { createLogger } from "../log";
import { systemClock } from "../clock";
import { createOfferReceipts, offerReceiptDeclaration } from "./offer-receipt";

const BASE_URL = "https://signet.example.com";
const operatorKey = generateKeypair();
const { extension: offerReceiptExtension, issueSettlementReceipt } = createOfferReceipts({
  operatorKey: () => operatorKey,
  baseUrl: BASE_URL,
  clock: systemClock,
  log: createLogger("silent"),
});
afterEach(() => vi.useRealTimers());

const requirement: PaymentRequirements = {
  scheme: "exact",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
  amount: "10000",
  payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  maxTimeoutSeconds: 120,
  extra: {},
};
const url = "https://signet.example.com/api/v1/chat/completions";

async function offersFor(validitySeconds: number): Promise<JWSSignedOffer[]> {
  const context = {
    requirements: [requirement],
    resourceInfo: { url },
    paymentRequiredResponse: { x402Version: 2, resource: { url }, accepts: [requirement] },
  } as unknown as PaymentRequiredContext;
  const data = (await offerReceiptExtension.enrichPaymentRequiredResponse!(
    offerReceiptDeclaration(validitySeconds),
    context,
  )) as { info: { offers: JWSSignedOffer[] } };
  return data.info.offers;
}

const operatorJwk = () => serviceDidDocument(BASE_URL, operatorKey).verificationMethod[0]!.publicKeyJwk;

describe("offerReceiptExtension", () => {
  it("signs one offer per requirement with the operator key, named by its per-key did:web key id", async () => {
    const [offer] = await offersFor(240);
    expect(extractJWSHeader(offer!.signature)).toEqual({
      alg: "EdDSA",
      kid: `did:web:signet.example.com#operator-key-${operatorKey.publicKeyBase58.slice(0, 8)}`,
    });
    const payload = await verifyOfferSignatureJWS(offer!, operatorJwk());
    expect(payload).toMatchObject({
      version: 1,
      resourceUrl: url,
      scheme: "exact",
      network: requirement.network,
      asset: requirement.asset,
      payTo: requirement.payTo,
      amount: "10000",
    });
    expect(payload.validUntil - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(239);
    expect(offer!.acceptIndex).toBe(0);
  });

  it("hands out the same signed offer while half its validity remains, then signs a fresh one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-25T12:00:00Z"));
    const [first] = await offersFor(200);
    vi.setSystemTime(new Date("2026-11-25T12:01:39Z"));
    expect((await offersFor(200))[0]).toBe(first);
    vi.setSystemTime(new Date("2026-11-25T12:01:41Z"));
    const [renewed] = await offersFor(200);
    expect(renewed!.signature).not.toBe(first!.signature);
    expect(extractOfferPayload(renewed!).validUntil).toBe(extractOfferPayload(first!).validUntil + 101);
  });

  it("rejects malformed input: an offer whose payload was altered does not verify", async () => {
    const [offer] = await offersFor(240);
    const [header, , signature] = offer!.signature.split(".");
    const forged = Buffer.from(JSON.stringify({ ...extractOfferPayload(offer!), amount: "1" })).toString("base64url");
    await expect(
      verifyOfferSignatureJWS({ ...offer!, signature: `${header}.${forged}.${signature}` }, operatorJwk()),
    ).rejects.toThrow();
  });
});

describe("issueSettlementReceipt()", () => {
  it("signs the payment's receipt for the resource's public URL, with its transaction", async () => {
    const issued = await issueSettlementReceipt("topup", {
      payer: "payer1",
      network: requirement.network,
      transaction: "tx1",
    });
    const receipt = issued!.receipt as JWSSignedReceipt;
    expect(issued!.extensions).toEqual({ "offer-receipt": { info: { receipt }, schema: expect.any(Object) } });
    const payload = await verifyReceiptSignatureJWS(receipt, operatorJwk());
    expect(payload).toEqual({
      version: 1,
      network: requirement.network,
      resourceUrl: "https://signet.example.com/api/v1/credits",
      payer: "payer1",
      issuedAt: expect.any(Number),
      transaction: "tx1",
    });
    expect(Math.abs(payload.issuedAt - Date.now() / 1000)).toBeLessThan(5);
    expect(extractReceiptPayload(receipt)).toEqual(payload);
  });

  it("rejects malformed input: a receipt checked against another key does not verify", async () => {
    const issued = await issueSettlementReceipt("chat", {
      payer: "payer1",
      network: requirement.network,
      transaction: "tx1",
    });
    const other = { kty: "OKP", crv: "Ed25519", x: Buffer.alloc(32, 7).toString("base64url") };
    await expect(verifyReceiptSignatureJWS(issued!.receipt as JWSSignedReceipt, other)).rejects.toThrow();
  });
});
