// Assembles a receipt from a served call: the hashes are computed here, from exactly what was sent and answered.
import "server-only";
import { sha256HexNode } from "../keys/server-verifier";
import { promptHashOfMessages, unitsToUsdcNumber } from "../verify";
import type { PaymentBlock, UnsignedReceipt } from "./receipt-types";

/** What a chat call's receipt hashes: the request's messages (or the raw `prompt` string a caller sent) and the text answered. */
export interface ChatHashed {
  prompt: { messages: readonly unknown[] } | { text: string };
  responseText: string;
}

/** A call's receipt hashes, computed by its route from exactly what was asked and answered (an embeddings call's). */
export interface ReceiptHashes {
  hashes: { prompt: string; response: string };
}

export type ReceiptFacts = (ChatHashed | ReceiptHashes) & {
  agentPubkey: string;
  upstream: string;
  model: string;
  costUnits: bigint;
  timestampMs: number;
  inferenceId: string;
  pointsTotal: number;
  payment?: { amountUnits: bigint; txSignature: string; network: string; payTo: string };
};

/** A chat call's receipt hashes: the messages' canonical hash (or the raw prompt's) and the answered text's. */
export function chatReceiptHashes(facts: ChatHashed): ReceiptHashes["hashes"] {
  const prompt =
    "messages" in facts.prompt
      ? promptHashOfMessages(facts.prompt.messages, sha256HexNode)
      : sha256HexNode(facts.prompt.text);
  return { prompt, response: sha256HexNode(facts.responseText) };
}

/** Builds the unsigned v2 receipt. Never includes undefined fields (canonical JSON refuses them). */
export function buildReceipt(facts: ReceiptFacts): UnsignedReceipt {
  const hashes = "hashes" in facts ? facts.hashes : chatReceiptHashes(facts);
  const receipt: UnsignedReceipt = {
    v: 2,
    agent_pubkey: facts.agentPubkey,
    upstream: facts.upstream,
    model: facts.model,
    cost_usdc: unitsToUsdcNumber(facts.costUnits),
    prompt_hash: hashes.prompt,
    response_hash: hashes.response,
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
