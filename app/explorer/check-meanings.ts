// What each of the five checks means to a person: its name in words, and what a pass or a fail tells them.
import type { CheckName } from "@/server/verify";

export const CHECK_MEANINGS: Record<CheckName, { title: string; pass: string; fail: string }> = {
  prompt_hash_ok: {
    title: "The prompt is the one that was signed",
    pass: "This receipt was issued for exactly the prompt you pasted.",
    fail: "The prompt you pasted is not the one this receipt was issued for: it was changed, or belongs to another call.",
  },
  response_hash_ok: {
    title: "The answer is the one that was signed",
    pass: "The answer you pasted is exactly what the service returned for this receipt.",
    fail: "The answer you pasted is not what the service returned for this receipt: it was changed, or belongs to another call.",
  },
  service_signature_ok: {
    title: "Signed by the operator",
    pass: "The operator's key signed these receipt fields, and none of them changed since.",
    fail: "The receipt was altered after signing, or signed by a key other than this operator's: do not trust its fields.",
  },
  payment_on_chain_ok: {
    title: "The payment is on the chain",
    pass: "The chain shows a confirmed USDC transfer of the receipt's amount to its deposit address (prepaid receipts pay from credit and pass this).",
    fail: "The chain does not show the transfer this receipt claims: wrong amount, wrong recipient, another token, or no such transaction.",
  },
  payer_matches: {
    title: "The agent in the receipt paid",
    pass: "The receipt's agent key signed the payment and owned the USDC that paid it (prepaid receipts pass this).",
    fail: "Someone other than the receipt's agent paid for this call, or the payment could not be tied to the agent.",
  },
};
