// Assembles a receipt from a served call: the hashes are computed here, from exactly what was sent and answered.
import "server-only";
import { sha256HexNode } from "../keys/server-verifier";
import { promptHashOfMessages, unitsToUsdcNumber } from "../verify";
import type { PaymentBlock, UnsignedReceipt } from "./receipt-types";

export interface ReceiptFacts {
  agentPubkey: string;
  upstream: string;
  model: string;
  costUnits: bigint;
  /** The request's messages, or the raw `prompt` string when the caller sent one. */
  prompt: { messages: readonly unknown[] } | { text: string };
  responseText: string;
  timestampMs: number;
  inferenceId: string;
  pointsTotal: number;
  payment?: { amountUnits: bigint; txSignature: string; network: string; payTo: string };
}

/** Builds the unsigned v2 receipt. Never includes undefined fields (canonical JSON refuses them). */
export function buildReceipt(facts: ReceiptFacts): UnsignedReceipt {
  const receipt: UnsignedReceipt = {
    v: 2,
    agent_pubkey: facts.agentPubkey,
    upstream: facts.upstream,
    model: facts.model,
    cost_usdc: unitsToUsdcNumber(facts.costUnits),
    prompt_hash: "messages" in facts.prompt ? promptHashOfMessages(facts.prompt.messages, sha256HexNode) : sha256HexNode(facts.prompt.text),
    response_hash: sha256HexNode(facts.responseText),
    timestamp: facts.timestampMs,
    inference_id: facts.inferenceId,
    points_total: facts.pointsTotal,
  };
  if (facts.payment) {
    const payment: PaymentBlock = {
      scheme: "x402",
      amount_usdc: unitsToUsdcNumber(facts.payment.amountUnits),
      tx_signature: facts.payment.txSignature,
      network: facts.payment.network,
      pay_to: facts.payment.payTo,
    };
    receipt.payment = payment;
  }
  return receipt;
}
