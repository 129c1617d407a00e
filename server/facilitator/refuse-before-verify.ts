// A pre-check in front of a stock x402 scheme: a payment the check refuses never reaches the scheme's verify or settle,
// so nothing about it is simulated, signed or sent. Everything else is the stock scheme, untouched.
import "server-only";
import type {
  FacilitatorContext,
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";

/** Why a payment is refused before the scheme sees it, or null to hand it to the scheme. */
export type PreCheck<Reason extends string> = (
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  signers: readonly string[],
) => Reason | null;

/** `inner` with `check` run first at both verify and settle (settle can be reached without a verify, by recovery). */
export function refuseBeforeVerify<Reason extends string>(
  inner: SchemeNetworkFacilitator,
  check: PreCheck<Reason>,
): SchemeNetworkFacilitator {
  return {
    scheme: inner.scheme,
    caipFamily: inner.caipFamily,
    getExtra: (network) => inner.getExtra(network),
    getSigners: (network) => inner.getSigners(network),
    verify(
      payload: PaymentPayload,
      requirements: PaymentRequirements,
      context?: FacilitatorContext,
    ): Promise<VerifyResponse> {
      const refused = check(payload, requirements, inner.getSigners(requirements.network));
      if (refused) return Promise.resolve({ isValid: false, invalidReason: refused, payer: "" });
      return inner.verify(payload, requirements, context);
    },
    settle(
      payload: PaymentPayload,
      requirements: PaymentRequirements,
      context?: FacilitatorContext,
    ): Promise<SettleResponse> {
      const refused = check(payload, requirements, inner.getSigners(requirements.network));
      if (refused)
        return Promise.resolve({
          success: false,
          errorReason: refused,
          transaction: "",
          network: requirements.network,
          payer: "",
        });
      return inner.settle(payload, requirements, context);
    },
  };
}
