// The x402 extensions as the stock client side of @x402/* sees them, over real HTTP: the 402's signed offers and the
// 200's signed receipt, decoded with @x402/extensions' client utilities and checked against the DID document the
// package itself fetches from the running service (did:web); and the bazaar metadata the stock client echoes in its
// payment, read with the package's facilitator utility, the same as /.well-known/x402 lists.
import { compactExtensions } from "../../x402/compact-extensions";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { KeyPairSigner } from "@solana/kit";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import {
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  type DiscoveredHTTPResource,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import {
  decodeSignedOffers,
  extractJWSHeader,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import bs58 from "bs58";
import { readStreamedAnswer } from "../../upstream/read-sse";
import { startServedStack, type HttpService, type ServedStack } from "../support/http-service";
import type { PaidStack } from "../support/paid-stack";

let served: ServedStack;
let stack: PaidStack;
let service: HttpService;

beforeAll(async () => {
  // The service's public origin is the address it is reached at: its did:web is did:web:127.0.0.1%3A<port>.
  served = await startServedStack({
    timing: "instant",
    env: { X402_FLAT_PRICE_USDC: "0.001", LOCAL_MODEL_STREAM_DELAY_MS: "0" },
  });
  ({ stack, service } = served);
});
afterAll(async () => served?.close());

const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "signed offers" }], ...extra });
const post = (path: string, body: string, f: typeof fetch = fetch) =>
  f(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });

/** A stock client paying with `agent`, remembering each payment payload it created. */
function stockClient(agent: KeyPairSigner): { pay: typeof fetch; created: PaymentPayload[] } {
  const client = new x402Client();
  client.register(stack.devnet.caip2 as never, new ExactSvmScheme(agent, { rpcUrl: stack.devnet.faultFreeUrl }));
  const created: PaymentPayload[] = [];
  client.onAfterPaymentCreation(async ({ paymentPayload }) => void created.push(paymentPayload));
  return { pay: wrapFetchWithPayment(fetch, client) as typeof fetch, created };
}

/** The 402 as the stock HTTP client reads it (from PAYMENT-REQUIRED). */
async function paymentRequiredOf(res: Response): Promise<PaymentRequired> {
  expect(res.status).toBe(402);
  return new x402HTTPClient(new x402Client()).getPaymentRequiredResponse(
    (name) => res.headers.get(name),
    await res.json(),
  );
}

/** The DID document URLs the package's did:web resolver fetched while `fn` ran. */
async function didFetchesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; urls: string[] }> {
  const realFetch = fetch;
  const seen: string[] = [];
  vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(String(input instanceof Request ? input.url : input));
    return realFetch(input, init);
  });
  try {
    const result = await fn();
    return { result, urls: seen.filter((u) => u.endsWith("/did.json")) };
  } finally {
    vi.unstubAllGlobals();
  }
}

describe("offer-receipt over HTTP, with the package's client utilities", () => {
  it("signs every offer of the 402 with the key that the service's DID document (fetched over HTTP) names", async () => {
    for (const [path, body] of [
      ["/api/v1/chat/completions", chatBody()],
      ["/api/v1/credits", JSON.stringify({ amount_usdc: "0.5" })],
    ] as const) {
      const paymentRequired = await paymentRequiredOf(await post(path, body));
      const offers = decodeSignedOffers(extractOffersFromPaymentRequired(paymentRequired));
      expect(offers).toHaveLength(paymentRequired.accepts.length);
      const operator = (await (await fetch(`${service.url}/api/v1/operator-key`)).json()) as { pubkey: string };
      for (const offer of offers) {
        expect(extractJWSHeader((offer.signedOffer as JWSSignedOffer).signature).kid).toBe(
          `did:web:${encodeURIComponent(new URL(service.url).host)}#operator-key-${operator.pubkey.slice(0, 8)}`,
        );
        const { result: verified, urls } = await didFetchesDuring(() =>
          verifyOfferSignatureJWS(offer.signedOffer as JWSSignedOffer),
        );
        expect(urls).toEqual([`${service.url}/.well-known/did.json`]);
        expect(verified).toEqual({
          version: 1,
          resourceUrl: `${service.url}${path}`,
          scheme: offer.scheme,
          network: offer.network,
          asset: offer.asset,
          payTo: offer.payTo,
          amount: offer.amount,
          validUntil: offer.validUntil,
        });
        // The offer commits to exactly the terms of the requirement it stands for.
        expect(findAcceptsObjectFromSignedOffer(offer, paymentRequired.accepts)).toEqual(
          paymentRequired.accepts[offer.acceptIndex!],
        );
        expect(offer.validUntil - Date.now() / 1000).toBeGreaterThanOrEqual(
          paymentRequired.accepts[0]!.maxTimeoutSeconds - 1,
        );
      }
    }
  });

  it("gives a stock @x402/fetch client's paid answer a signed receipt that verifies and matches the offer it paid", async () => {
    const agent = await stack.newAgent();
    const offer = decodeSignedOffers(
      extractOffersFromPaymentRequired(await paymentRequiredOf(await post("/api/v1/chat/completions", chatBody()))),
    )[0]!;
    const res = await post("/api/v1/chat/completions", chatBody(), stockClient(agent).pay);
    expect(res.status).toBe(200);
    const receipt = extractReceiptFromResponse(res) as JWSSignedReceipt;
    expect(receipt.format).toBe("jws");
    const { result: payload, urls } = await didFetchesDuring(() => verifyReceiptSignatureJWS(receipt));
    expect(urls).toEqual([`${service.url}/.well-known/did.json`]);
    const settlement = new x402HTTPClient(new x402Client()).getPaymentSettleResponse((name) => res.headers.get(name));
    expect(payload).toEqual({
      version: 1,
      network: stack.devnet.caip2,
      resourceUrl: `${service.url}/api/v1/chat/completions`,
      payer: agent.address,
      issuedAt: expect.any(Number),
      transaction: settlement.transaction,
    });
    expect(verifyReceiptMatchesOffer(receipt, offer, [agent.address])).toBe(true);
    // The SIR receipt is still there beside it, unchanged in form.
    expect(JSON.parse(Buffer.from(res.headers.get("x-service-receipt")!, "base64").toString())).toMatchObject({
      v: 2,
      agent_pubkey: agent.address,
    });
  });

  it("puts a streamed answer's signed receipt in its final event, once the answer was served", async () => {
    const agent = await stack.newAgent();
    const res = await post("/api/v1/chat/completions", chatBody({ stream: true }), stockClient(agent).pay);
    expect(res.status).toBe(200);
    // A stream's headers leave before the call is served: they carry the settlement, not yet a receipt.
    expect(extractReceiptFromResponse(res)).toBeUndefined();
    const answer = await readStreamedAnswer(res.body!);
    expect(answer.done).toBe(true);
    const payload = await verifyReceiptSignatureJWS(answer.x402Receipt as JWSSignedReceipt);
    expect(payload).toMatchObject({
      resourceUrl: `${service.url}/api/v1/chat/completions`,
      payer: agent.address,
      network: stack.devnet.caip2,
    });
  });

  it("gives a top-up's 200 a signed receipt for the top-up resource", async () => {
    const agent = await stack.newAgent();
    const res = await post("/api/v1/credits", JSON.stringify({ amount_usdc: "0.25" }), stockClient(agent).pay);
    expect(res.status).toBe(200);
    const payload = await verifyReceiptSignatureJWS(extractReceiptFromResponse(res) as JWSSignedReceipt);
    expect(payload).toMatchObject({
      resourceUrl: `${service.url}/api/v1/credits`,
      payer: agent.address,
      transaction: ((await res.json()) as { tx_signature: string }).tx_signature,
    });
  });

  it("binds to the domain the very key /api/v1/operator-key names, the one that signs the SIR receipts", async () => {
    const did = (await (await fetch(`${service.url}/.well-known/did.json`)).json()) as {
      id: string;
      verificationMethod: { id: string; publicKeyJwk: { x: string } }[];
      assertionMethod: string[];
    };
    const operator = (await (await fetch(`${service.url}/api/v1/operator-key`)).json()) as { pubkey: string };
    expect(did.id).toBe(`did:web:${encodeURIComponent(new URL(service.url).host)}`);
    expect(did.assertionMethod).toEqual([
      `${did.id}#operator-key`,
      `${did.id}#operator-key-${operator.pubkey.slice(0, 8)}`,
    ]);
    for (const method of did.verificationMethod)
      expect(bs58.encode(Buffer.from(method.publicKeyJwk.x, "base64url"))).toBe(operator.pubkey);
  });

  it("rejects malformed input: a receipt re-signed by another key under the service's kid does not verify", async () => {
    const agent = await stack.newAgent();
    const res = await post("/api/v1/chat/completions", chatBody(), stockClient(agent).pay);
    const receipt = extractReceiptFromResponse(res) as SignedReceipt & { signature: string };
    const [header, payload] = receipt.signature.split(".");
    const forged = { ...receipt, signature: `${header}.${payload}.${Buffer.alloc(64, 1).toString("base64url")}` };
    await expect(verifyReceiptSignatureJWS(forged as JWSSignedReceipt)).rejects.toThrow();
  });
});

describe("bazaar over HTTP", () => {
  it("declares, in both paid 402s, discovery metadata the package validates, echoed by the stock client for catalogues", async () => {
    for (const [path, body, description] of [
      ["/api/v1/chat/completions", chatBody(), /OpenAI-compatible chat completion/],
      ["/api/v1/credits", JSON.stringify({ amount_usdc: "0.1" }), /prepaid credit/],
    ] as const) {
      const agent = await stack.newAgent();
      const paymentRequired = await paymentRequiredOf(await post(path, body));
      const bazaar = paymentRequired.extensions!.bazaar as DiscoveryExtension;
      expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
      expect(paymentRequired.resource).toMatchObject({
        url: `${service.url}${path}`,
        description: expect.stringMatching(description),
        serviceName: "Signet",
      });

      const { pay, created } = stockClient(agent);
      expect((await post(path, body, pay)).status).toBe(200);
      const payload = created[0]!;
      // What a facilitator catalogues from the stock client's payment, validated by the package.
      const discovered = extractDiscoveryInfo(payload, payload.accepted) as DiscoveredHTTPResource;
      expect(discovered).toMatchObject({
        resourceUrl: `${service.url}${path}`,
        method: "POST",
        x402Version: 2,
        serviceName: "Signet",
      });
      expect(discovered.description).toMatch(description);
      expect(discovered.discoveryInfo).toEqual(bazaar.info);
    }
  });

  it("lists in /.well-known/x402 the declarations whose compact form the 402s carry", async () => {
    const discovery = (await (await fetch(`${service.url}/.well-known/x402`)).json()) as {
      did: { id: string; document: string };
      paid_resources: { resource: string; extensions: Record<string, unknown> }[];
    };
    expect(discovery.did).toEqual({
      id: `did:web:${encodeURIComponent(new URL(service.url).host)}`,
      document: `${service.url}/.well-known/did.json`,
    });
    for (const [path, body] of [
      ["/api/v1/chat/completions", chatBody()],
      ["/api/v1/credits", JSON.stringify({ amount_usdc: "0.1" })],
    ] as const) {
      const paymentRequired = await paymentRequiredOf(await post(path, body));
      const listed = discovery.paid_resources.find((r) => r.resource === `${service.url}${path}`);
      // The 402's head carries each declaration compact (its info whole, a schema of its fields); the listing, whole.
      expect(compactExtensions(listed?.extensions)).toEqual({
        bazaar: paymentRequired.extensions!.bazaar,
        "payment-identifier": paymentRequired.extensions!["payment-identifier"],
      });
      expect(JSON.stringify(listed?.extensions).length).toBeGreaterThan(
        JSON.stringify(paymentRequired.extensions).length,
      );
    }
  });

  it("keeps the 402's head and the stock client's payment header (which echoes the 402's extensions) within a default proxy's bounds", async () => {
    const res = await post("/api/v1/chat/completions", chatBody());
    const responseHeaderBytes = [...res.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    // nginx reads an answer's whole head into 4 KB, and a request header line into 8 KB (header-sizes.test.ts).
    expect(responseHeaderBytes).toBeLessThan(4_096);
    const agent = await stack.newAgent();
    let sent = 0;
    const measuring = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      sent = Math.max(sent, (request.headers.get("payment-signature") ?? "").length);
      return fetch(request);
    }) as typeof fetch;
    const client = new x402Client();
    client.register(stack.devnet.caip2 as never, new ExactSvmScheme(agent, { rpcUrl: stack.devnet.faultFreeUrl }));
    expect(
      (await post("/api/v1/chat/completions", chatBody(), wrapFetchWithPayment(measuring, client) as typeof fetch))
        .status,
    ).toBe(200);
    expect(sent).toBeGreaterThan(1_000);
    expect(sent).toBeLessThan(8_192 - "payment-signature: ".length);
  });
});
