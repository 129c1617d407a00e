// The receipt v2 shape the service issues (docs/receipts.md). The verifier accepts any signed shape; these are ours.
import "server-only";

export interface PaymentBlock {
  scheme: "x402";
  amount_usdc: number;
  tx_signature: string;
  /** `solana:<genesis>` (CAIP-2) or `eip155:<chain id>`. */
  network: string;
  pay_to: string;
}

export interface UnsignedReceipt {
  v: 2;
  agent_pubkey: string;
  upstream: string;
  model: string;
  cost_usdc: number;
  prompt_hash: string;
  response_hash: string;
  /** Unix ms. */
  timestamp: number;
  inference_id: string | number;
  points_total: number;
  payment?: PaymentBlock;
}

export interface Receipt extends UnsignedReceipt {
  service_signature: string;
}
