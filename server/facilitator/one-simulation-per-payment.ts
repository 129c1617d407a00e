// One simulation per payment. The service's order is verify → payer → allowlist → claim → settle, and @x402/svm's
// `settle` verifies again before it sends, so every payment would be simulated twice, a few milliseconds apart, on the
// same bytes. The signer remembers a successful verify-time simulation of
// exactly these transaction bytes on this network for a short while, and the next simulation of them (settle's)
// uses it once instead of asking the RPC again.
//
// SECURITY: what the second simulation guards is a state change between verify and settle that would make the
// transfer fail on chain (x402 sends with skipPreflight, so the fee payer pays the fee of a failing transaction). The
// paid route settles one payment per payer at a time, and when another settlement of the same payer was sent since
// this one verified, it calls `forgetSimulation` first, so settle asks the chain again right before it sends.
import "server-only";
import type { FacilitatorSvmSigner } from "@x402/svm";
import type { Clock } from "../clock";
import { useOnceMemory } from "./use-once-memory";

export type ReusingSvmSigner = FacilitatorSvmSigner & {
  /** Drops a remembered simulation of these bytes, so the next simulation asks the chain. */
  forgetSimulation(transaction: string, network: string): void;
};

/** Wraps `signer` so a successful simulation of the same bytes is reused once within FRESH_MS (by `clock`). */
export function oneSimulationPerPayment(signer: FacilitatorSvmSigner, clock: Clock): ReusingSvmSigner {
  const simulated = useOnceMemory<true>(clock);
  const simulate = signer.simulateTransaction.bind(signer);
  return {
    ...signer,
    forgetSimulation: (transaction, network) => simulated.forget(`${network} ${transaction}`),
    simulateTransaction: async (transaction, network, options) => {
      const key = `${network} ${transaction}`;
      if (simulated.take(key) && options === undefined) return;
      await simulate(transaction, network, options);
      // Only the plain simulation x402 uses at verify is remembered; a failure throws above and is never cached.
      if (options === undefined) simulated.put(key, true);
    },
  };
}
