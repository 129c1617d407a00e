// One verification per payment. The service's order is verify → payer → allowlist → claim → settle, and @x402/svm's
// `settle` verifies again before it sends (its private `_verify`): it decodes the same bytes, checks the same
// signatures with WebCrypto and derives the same associated token accounts that verify did a few milliseconds before.
// Those checks are a function of the transaction's bytes, the requirements and the fee payer's addresses; what can
// change in between is the chain, and only the simulation reads it, which oneSimulationPerPayment reuses under the same
// rule. So a valid verification of exactly these bytes under exactly these requirements stands in once, within
// FRESH_MS, for the next one (settle's).
//
// SECURITY: `forget` drops it together with the remembered simulation (the facilitator's forgetSimulation calls both):
// when another settlement of the same payer was sent since this one verified, settle then verifies in full again,
// simulation included, right before it sends. A verdict used drops the remembered simulation too, as settle's own
// simulation would have used it, so no later look at the same bytes finds it. An invalid verdict is never remembered.
import "server-only";
import type { PaymentPayload, PaymentRequirements, VerifyResponse } from "@x402/core/types";
import type { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import type { Clock } from "../clock";
import { useOnceMemory } from "./use-once-memory";

/** What @x402/svm's `_verify` answers: the verdict, and what its settle reads of how it was reached. */
interface SchemeVerification {
  response: VerifyResponse;
}

type VerifyMethod = (payload: PaymentPayload, requirements: PaymentRequirements) => Promise<SchemeVerification>;

export interface VerificationMemory {
  /** Makes `scheme`'s verifications reuse a valid one of the same bytes and requirements once; returns `scheme`. */
  remember(scheme: ExactSvmScheme): ExactSvmScheme;
  /** Drops a remembered verification of these bytes on `network`, so the next one runs in full. */
  forget(transaction: string, network: string): void;
}

/**
 * The memory of valid verifications, by `clock`, for the schemes given to `remember`; `used` hears of each verdict
 * used in place of a verification (the signer's forgetSimulation). Throws at start-up when a scheme has no `_verify`:
 * the @x402/svm release is not the one this service pins.
 */
export function oneVerifyPerPayment(
  clock: Clock,
  used: (transaction: string, network: string) => void = () => {},
): VerificationMemory {
  /** By network and transaction: the rest of what the verdict depended on, and the verdict. */
  const verdicts = useOnceMemory<{ detail: string; verification: SchemeVerification }>(clock);
  return {
    remember(scheme) {
      const target = scheme as unknown as { _verify?: VerifyMethod };
      if (typeof target._verify !== "function")
        throw new Error("@x402/svm's ExactSvmScheme has no _verify: this is not the release Signet pins");
      const verify = target._verify.bind(scheme);
      target._verify = async (payload, requirements) => {
        const transaction = (payload.payload as { transaction?: unknown }).transaction;
        if (typeof transaction !== "string") return verify(payload, requirements);
        const key = `${requirements.network} ${transaction}`;
        // Everything else _verify reads of the payment: the scheme and network the payer accepted, the requirements.
        const detail = JSON.stringify([payload.accepted.scheme, payload.accepted.network, requirements]);
        const known = verdicts.take(key);
        if (known?.detail === detail) {
          used(transaction, requirements.network);
          return known.verification;
        }
        const verification = await verify(payload, requirements);
        if (verification.response.isValid) verdicts.put(key, { detail, verification });
        return verification;
      };
      return scheme;
    },
    forget: (transaction, network) => verdicts.forget(`${network} ${transaction}`),
  };
}
