// What a paid route hands the payment state machine, and what it answers: the request's payment and plan in, one
// outcome out (expected outcomes are values, never thrown).
import "server-only";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { NetworkId } from "../verify";
import type { Payment } from "../db";
import type { AppError } from "../errors";
import type { Settings } from "../settings/setting-definitions";
import type { StoredSettings } from "../settings/read-settings";
import type { DecodedPayment } from "../x402/payment-headers";
import type { PaidRoute } from "../x402/paid-routes";
import type { PaymentPurpose } from "../ledger/payment-states";

/** A payment whose transfer landed and whose hold is reserved for the call it pays for. */
export type SettledPayment = Payment & { txSignature: string; status: "settled" | "serving" };

export type PaidRequestOutcome =
  /** No payment header: the 402 challenge. */
  | { kind: "challenge"; error: AppError }
  /** The payment cannot buy this call (invalid, refused by the chain, not allowed, the chain unreachable). */
  | { kind: "refused"; error: AppError }
  /** The payment was used already, or is being used by another request right now. */
  | { kind: "replay"; error: AppError }
  /** The settlement was broadcast and its confirmation not seen yet (502 settlement_pending): retry the same request. */
  | { kind: "pending"; error: AppError }
  /** A settled payment whose call was not served (the upstream failed, or its server died): serve it now, once. */
  | { kind: "retry-unserved"; payment: SettledPayment }
  /**
   * The same request with the same payment, already served: its stored answer is given again (a call's answer body,
   * when still kept), never a second service.
   */
  | { kind: "answered"; payment: Payment & { txSignature: string } }
  /** Settled just now; for a call payment, its hold is reserved; for a top-up, the credit is the whole purchase. */
  | {
      kind: "settled";
      payment: SettledPayment;
      balanceUnits: bigint;
      /** The agent's points as the credit read them, when it did. */ pointsBefore?: number;
    }
  /** The settings changed since the request was planned: nothing was taken; plan it again with `replan`. */
  | { kind: "stale-settings"; replan: Replan };

/** What admitPayment answers: every outcome but `stale-settings`, which it plans again itself. */
export type AdmittedOutcome = Exclude<PaidRequestOutcome, { kind: "stale-settings" }>;

/**
 * A paid route's request, as admitPayment takes it: its headers, how the route plans it under a request's settings
 * (throwing the route's refusal), and what its payment is claimed for once planned.
 */
export interface PaidRequest<P extends { plan: PaymentPlan }> {
  headers: Headers;
  plan(state: PaidRequestState): Promise<P>;
  admission(planned: P): Omit<AdmitPaymentInput, "state" | "plan">;
}

export interface PaymentPlan {
  network: NetworkId;
  requirements: PaymentRequirements;
  payTo: string;
  amountUnits: bigint;
}

/**
 * What a paid route plans a request from: the request's payment header, read and decoded once, with its idempotency
 * key; and the settings. A challenge or a refused header is answered from settings read now; a payment is planned from
 * the settings this process saw last, and its claim's statement takes the claim only while those are still the stored
 * ones (otherwise the request is planned again: `stale-settings`). A payment's settings read, lookup, claim and lane
 * are then one statement.
 */
export interface PaidRequestState {
  settings: Settings;
  /** The stored settings `settings` were worked out from. */
  stored: StoredSettings;
  /** How many times this request was planned again because the settings changed under it. */
  replans: number;
  /**
   * True when `settings` are this process's guess: a refusal worked out from them is not the service's answer until
   * the stored settings confirm it (replanWithStoredSettings).
   */
  guessed: boolean;
  /** Null when the request carries no payment header. */
  payment: null | (DecodedPayment & { ok: false }) | { ok: true; payload: PaymentPayload; key: string };
}

/** The settings a request is planned again with after they changed under it. */
export interface Replan {
  stored: StoredSettings;
  replans: number;
}

export interface AdmitPaymentInput {
  /** From readPaidRequestState, on the same request. */
  state: PaidRequestState;
  plan: PaymentPlan;
  resourceUrl: string;
  description: string;
  purpose: PaymentPurpose;
  /** The paid route the request came in on (its row in the paid-route registry): the payment's events and metrics. */
  route: PaidRoute;
  /** What this request buys (request-digest.ts): a payment claimed by another request serves only that one. */
  requestDigest: string;
  /** Who the credit goes to; the verified payer when absent. */
  beneficiary?: string;
}
