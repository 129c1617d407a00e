// A receipt's on-chain payment checks, by the family of the network it names: the verifier's one family branch
// (server/chain's adapters are the service's; the verifier runs in the browser without them).
import { checkEvmPayment } from "./check-evm-payment";
import { checkSolanaPayment, type PaymentCheckOutcome } from "./check-solana-payment";
import type { BoundedFetchOptions } from "./json-rpc";
import type { NetworkRow } from "./network-registry";

/** What a receipt's payment block and agent say was paid, on the row's network. */
export interface ReceiptPaymentClaim {
  transaction: string;
  payTo: string;
  agent: string;
  amountUnits: bigint;
  rpcUrl: string;
}

/** Runs checks 4 and 5 (the transfer and its payer) against the row's chain. Throws VerifierFetchError when the RPC fails. */
export function checkPaymentByFamily(
  row: NetworkRow,
  claim: ReceiptPaymentClaim,
  opts: BoundedFetchOptions,
): Promise<PaymentCheckOutcome> {
  const { transaction, payTo, agent, amountUnits, rpcUrl } = claim;
  if (row.family === "evm")
    return checkEvmPayment(
      { txHash: transaction, payTo, agentAddress: agent, usdcContract: row.usdcAsset, amountUnits, rpcUrl },
      opts,
    );
  return checkSolanaPayment(
    { txSignature: transaction, payTo, agentPubkey: agent, usdcMint: row.usdcAsset, amountUnits, rpcUrl },
    opts,
  );
}
