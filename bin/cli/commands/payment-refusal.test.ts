import { describe, expect, it } from "vitest";
import { paymentRefusalLines, type PaymentRefusal } from "./payment-refusal";

const PAYER = "7sGXtEVwKTRwzjbDAjpmURHSAjdZNbYMFt6Yk2Z1M7aF";
const short: PaymentRefusal = {
  reason: "insufficient_balance",
  message: "the payment was not accepted",
  payer: PAYER,
  asks: { units: 10_000n, networkLabel: "Solana devnet", asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" },
  endpoint: "http://localhost:3000",
  local: true,
  fundRpc: null,
};

describe("paymentRefusalLines()", () => {
  it("says the refusal plainly first, with its reason, and that nothing was charged (never 'done')", () => {
    const [first] = paymentRefusalLines(short);
    expect(first).toBe(
      "signet: the service refused the payment (HTTP 402 payment_required): insufficient_balance: the payment was not accepted; nothing was charged",
    );
    // The reason's code is said once, when the message already ends with it, and alone without a message.
    expect(paymentRefusalLines({ ...short, message: "payment verification failed: insufficient_balance" })[0]).toBe(
      "signet: the service refused the payment (HTTP 402 payment_required): payment verification failed: insufficient_balance; nothing was charged",
    );
    expect(paymentRefusalLines({ ...short, message: "" })[0]).toBe(
      "signet: the service refused the payment (HTTP 402 payment_required): insufficient_balance; nothing was charged",
    );
  });

  it("tells a payer short of USDC on a dev stack to fund it with signet localnet fund --usdc 1", () => {
    expect(paymentRefusalLines(short).slice(1)).toEqual([
      `  the payer ${PAYER} holds less than 0.01 USDC on Solana devnet, the price of this call.`,
      `  fund it on the local chain: npm run -s signet -- localnet fund ${PAYER} --usdc 1`,
    ]);
  });

  it("names the chain paid on with --rpc when localnet fund would fund another one, and funds at least the price", () => {
    const lines = paymentRefusalLines({
      ...short,
      asks: { ...short.asks!, units: 2_500_000n },
      fundRpc: "http://127.0.0.1:18899",
    });
    expect(lines.at(-1)).toBe(
      `  fund it on the local chain: npm run -s signet -- localnet fund ${PAYER} --usdc 2.5 --rpc http://127.0.0.1:18899`,
    );
  });

  it("elsewhere gives the payer, the network and the amount the challenge asks for, and the grant", () => {
    const lines = paymentRefusalLines({ ...short, local: false, endpoint: "https://signet.example" });
    expect(lines.slice(2)).toEqual([
      `  fund it: send at least 0.01 USDC (USDC, asset 4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU) on Solana devnet to ${PAYER}, then run the command again.`,
      "  or, with a Solana key, claim a free grant (https://signet.example/grants, or signet grant) and spend it with prepaid calls (signet infer).",
    ]);
    expect(lines.join("\n")).not.toContain("localnet");
  });

  it("gives no funding advice for a refusal that more USDC would not cure", () => {
    expect(
      paymentRefusalLines({ ...short, reason: "payment_expired", message: "the payment's blockhash expired" }),
    ).toEqual([
      "signet: the service refused the payment (HTTP 402 payment_required): payment_expired: the payment's blockhash expired; nothing was charged",
    ]);
  });

  it("rejects malformed input: a 402 with no reason, message or readable challenge still reads as a refusal", () => {
    expect(paymentRefusalLines({ ...short, reason: null, message: "" })).toEqual([
      "signet: the service refused the payment (HTTP 402 payment_required): no reason given; nothing was charged",
    ]);
    const noChallenge = paymentRefusalLines({ ...short, asks: null, local: false });
    expect(noChallenge[1]).toBe(`  the payer ${PAYER} holds too little USDC for this call.`);
    expect(noChallenge[2]).toBe("  fund it with USDC on the network paid on, then run the command again.");
  });
});
