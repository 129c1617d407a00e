// The exact SVM scheme for x402 v1 payments: @x402/svm's stock ExactSvmSchemeV1, behind the same refusals as the v2
// scheme. The stock v1 scheme has no fee-griefing options (it caps the compute unit price only, at 5 lamports per
// unit, and not the units), so this service's limits are checked before it sees a payment; and it names networks by
// their v1 names, which its signer here reads as the CAIP-2 ids the service's RPCs and wrappers are keyed by.
import "server-only";
import type { PaymentPayload, PaymentRequirements, SchemeNetworkFacilitator } from "@x402/core/types";
import type { FacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmSchemeV1 } from "@x402/svm/exact/v1/facilitator";
import type { NetworkRegistry } from "../verify";
import { feePayerRefusal, type FeePayerRefusal } from "./isolate-fee-payer";
import { refuseBeforeVerify } from "./refuse-before-verify";
import { computeBudgetOf } from "./settlement-fee";

type ComputeBudgetRefusal = "compute_unit_limit_too_high" | "compute_unit_price_too_high" | "too_many_signatures";

/** The fee payer's limits, as the v2 scheme is given them. */
export interface FeeLimits {
  maxComputeUnits: number;
  maxPriorityFeeMicroLamports: number;
  maxRequiredSignatures: number;
}

/**
 * Refuses a Solana payment that would cost the fee payer more than `limits` allow: any compute unit limit or unit
 * price above the limits, or more required signatures. An undecodable one is left to the fee-payer check, which
 * refuses it.
 */
function computeBudgetRefusal(payload: PaymentPayload, limits: FeeLimits): ComputeBudgetRefusal | null {
  const budget = computeBudgetOf(payload);
  if (!budget) return null;
  if (budget.signatures > limits.maxRequiredSignatures) return "too_many_signatures";
  if (budget.limits.some((units) => units > BigInt(limits.maxComputeUnits))) return "compute_unit_limit_too_high";
  if (budget.prices.some((price) => price > BigInt(limits.maxPriorityFeeMicroLamports)))
    return "compute_unit_price_too_high";
  return null;
}

/** `signer` for the v1 scheme: a v1 network name (of `networks`) in any call is read as that network's CAIP-2 id. */
function withCaip2Networks(signer: FacilitatorSvmSigner, networks: NetworkRegistry): FacilitatorSvmSigner {
  const caip2 = (network: string) => networks.byV1Name(network)?.caip2 ?? network;
  return {
    getAddresses: () => signer.getAddresses(),
    signTransaction: (transaction, feePayer, network) => signer.signTransaction(transaction, feePayer, caip2(network)),
    simulateTransaction: (transaction, network, options) =>
      signer.simulateTransaction(transaction, caip2(network), options),
    sendTransaction: (transaction, network) => signer.sendTransaction(transaction, caip2(network)),
    confirmTransaction: (signature, network) => signer.confirmTransaction(signature, caip2(network)),
  };
}

/** The v1 exact SVM scheme over `signer`, refusing what the v2 scheme's limits would refuse before it simulates. */
export function createSvmSchemeV1(
  signer: FacilitatorSvmSigner,
  limits: FeeLimits,
  networks: NetworkRegistry,
): SchemeNetworkFacilitator {
  const stock = new ExactSvmSchemeV1(withCaip2Networks(signer, networks));
  // SECURITY: the fee payer pays the priority fee of whatever compute budget the payer's transaction asks for.
  return refuseBeforeVerify<FeePayerRefusal | ComputeBudgetRefusal>(
    stock,
    (payload: PaymentPayload, requirements: PaymentRequirements, signers) =>
      feePayerRefusal(payload, requirements, signers) ?? computeBudgetRefusal(payload, limits),
  );
}
