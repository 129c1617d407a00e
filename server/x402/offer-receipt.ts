// Signed offers and receipts: the x402 `offer-receipt` extension (@x402/extensions), as JWS (EdDSA) signed by the
// operator key and named by its per-key did:web DID URL (`kid` = `did:web:<host>#operator-key-<first 8 base58
// characters>`), which /.well-known/did.json binds to the service's domain and keeps listing after the key is retired.
// - Offers: every 402 carries one per accepted requirement. An offer is signed once and reused while at least half its
//   validity remains, so a 402 costs no signature; the validity covers the payment's whole timeout either way.
// - Receipts: one per settled payment, in the settlement response's `extensions` (the PAYMENT-RESPONSE header) once the
//   call was served, or in a stream's final event. One Ed25519 signature each.
import "server-only";
import type { ResourceServerExtension, SettleResultContext } from "@x402/core/types";
import {
  createJWSOfferReceiptIssuer,
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  extractOfferPayload,
  OFFER_RECEIPT,
  type JWSSigner,
  type OfferReceiptDeclaration,
  type OfferReceiptIssuer,
  type SignedOffer,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import { operatorKeyIdAt } from "../keys/did-web-document";
import { signEd25519 } from "../keys/node-ed25519";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { logEvent, loggableError, type Logger } from "../log";
import type { Clock } from "../clock";
import { compactExtensions } from "./compact-extensions";
import { paidRouteUrl, type PaidRoute } from "./paid-routes";

/** Distinct offers kept signed (resource × network × amount × payee); past it the expired go, then all. */
const MAX_CACHED_OFFERS = 1_024;

/**
 * The route declaration: receipts name the settlement's transaction (every 200 already shows it in PAYMENT-RESPONSE,
 * and with it anyone can check the payment on chain); offers live `validitySeconds`.
 */
export function offerReceiptDeclaration(validitySeconds: number): OfferReceiptDeclaration {
  return declareOfferReceiptExtension({ includeTxHash: true, offerValiditySeconds: validitySeconds })[OFFER_RECEIPT]!;
}

/** What offers and receipts are signed with: the operator key (loaded on first use) and the service's public origin. */
export interface OfferReceiptSigner {
  operatorKey(): Ed25519Keypair;
  baseUrl: string;
  /** Where a cached offer's validity is judged. */
  clock: Clock;
  /** Where a receipt that could not be made is logged. */
  log: Logger;
}

/** The offer-receipt extension over the operator key, and the settlement receipts it signs. */
export interface OfferReceipts {
  /** The package's offer-receipt extension, for the x402 resource server to register. */
  extension: ResourceServerExtension;
  /**
   * The signed receipt of a settled payment whose call was served (or whose credit was given), as the extension puts
   * it in the settlement response. Null (logged) when the key could not sign: the call was served and charged, so its
   * answer still goes out.
   */
  issueSettlementReceipt(
    resource: PaidRoute,
    settlement: { payer: string; network: string; transaction: string },
  ): Promise<SettlementReceipt | null>;
}

/** Offers signed once and reused while half their validity or more remains; receipts signed per settlement. */
export function createOfferReceipts(signer: OfferReceiptSigner): OfferReceipts {
  let issuer: OfferReceiptIssuer | null = null;
  /** The package's JWS issuer over the operator key, built on first use (a route that signs nothing loads no key). */
  const operatorIssuer = (): OfferReceiptIssuer => {
    if (!issuer) {
      const key = signer.operatorKey();
      // The key's own id, not `#operator-key`: that one follows the current key, so after a rotation it would name
      // another key than the one that signed.
      const kid = operatorKeyIdAt(signer.baseUrl, key.publicKeyBase58);
      const jws: JWSSigner = {
        kid,
        format: "jws",
        algorithm: "EdDSA",
        // node:crypto, as every server-side signature: one Ed25519 signature per receipt.
        sign: async (payload) => Buffer.from(signEd25519(payload, key.seed)).toString("base64url"),
      };
      issuer = createJWSOfferReceiptIssuer(kid, jws);
    }
    return issuer;
  };
  const offers = new Map<string, { offer: Promise<SignedOffer>; validUntil: number }>();
  const cachingIssuer: OfferReceiptIssuer = {
    get kid() {
      return operatorIssuer().kid;
    },
    format: "jws",
    issueOffer(resourceUrl, input) {
      const current = operatorIssuer();
      const validity = input.offerValiditySeconds ?? 0;
      const key = [
        current.kid,
        resourceUrl,
        input.acceptIndex,
        input.scheme,
        input.network,
        input.asset,
        input.payTo,
        input.amount,
        validity,
      ].join("|");
      const now = Math.floor(signer.clock.now() / 1000);
      const cached = offers.get(key);
      if (cached && cached.validUntil - now >= validity / 2) return cached.offer;
      if (offers.size >= MAX_CACHED_OFFERS) {
        for (const [k, v] of offers) if (v.validUntil <= now) offers.delete(k);
        if (offers.size >= MAX_CACHED_OFFERS) offers.clear();
      }
      const entry = { offer: current.issueOffer(resourceUrl, input), validUntil: now + validity };
      offers.set(key, entry);
      entry.offer.then(
        (offer) => (entry.validUntil = extractOfferPayload(offer).validUntil),
        () => offers.delete(key),
      );
      return entry.offer;
    },
    issueReceipt(resourceUrl, payer, network, transaction) {
      return operatorIssuer().issueReceipt(resourceUrl, payer, network, transaction);
    },
  };
  const extension = createOfferReceiptExtension(cachingIssuer);
  return {
    extension,
    // Our settlement runs through the payment state machine, not the resource server's settlePayment, so the
    // extension's own hook is called here with what it reads: the result and the resource URL.
    async issueSettlementReceipt(resource, settlement) {
      const url = paidRouteUrl(signer.baseUrl, resource);
      const context = {
        result: { success: true, ...settlement },
        transportContext: { request: { adapter: { getUrl: () => url } } },
      } as unknown as SettleResultContext;
      // The declaration's offer validity plays no part in a receipt. A hook that throws issues no receipt, and its error
      // is logged with the failure.
      let failure: unknown;
      const enriched = extension.enrichSettlementResponse!(offerReceiptDeclaration(0), context);
      const data = (await enriched.catch((err: unknown) => void (failure = err))) as
        { info?: { receipt?: SignedReceipt } } | undefined;
      const receipt = data?.info?.receipt;
      if (!receipt) {
        const cause = failure === undefined ? {} : { err: loggableError(failure) };
        const { network, transaction } = settlement;
        logEvent(signer.log, "offer_receipt.receipt_failed", { network, transaction, ...cause }, "error");
        return null;
      }
      // The settlement response travels in a header a default proxy bounds: the extension goes compact.
      return { extensions: compactExtensions({ [OFFER_RECEIPT]: data })!, receipt };
    },
  };
}

interface SettlementReceipt {
  /** The settlement response's `extensions`: `{ "offer-receipt": { info: { receipt }, schema } }`. */
  extensions: Record<string, unknown>;
  /** The signed receipt itself (`{ format: "jws", signature }`). */
  receipt: SignedReceipt;
}
