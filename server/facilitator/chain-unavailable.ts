// Telling an RPC outage from a payment the chain refused. @x402/svm's verify turns every simulation error into
// "simulation failed", so a dead RPC would read as an invalid payment; the signer marks transport failures instead, and
// the paid route answers them as the chain being unavailable (502), never as the client's fault.
import "server-only";
import type { FacilitatorSvmSigner } from "@x402/svm";

/** Prefix of a simulation error that is the RPC's failure, not the transaction's. */
export const CHAIN_UNAVAILABLE = "chain_unavailable";

/** The chain answered and refused the transaction: @x402/svm's own message for a simulation with an error. */
const REFUSED_BY_CHAIN = /^Simulation failed/;

/** Wraps `signer` so a simulation that could not reach the chain throws an error whose message starts with CHAIN_UNAVAILABLE. */
export function markChainUnavailable(signer: FacilitatorSvmSigner): FacilitatorSvmSigner {
  const simulate = signer.simulateTransaction.bind(signer);
  return {
    ...signer,
    simulateTransaction: async (transaction, network, options) => {
      try {
        await simulate(transaction, network, options);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (REFUSED_BY_CHAIN.test(message)) throw err;
        throw new Error(`${CHAIN_UNAVAILABLE}: ${message}`, { cause: err });
      }
    },
  };
}
