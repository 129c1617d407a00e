// A refused verification's reason, with the Solana RPC read it makes held in memory: only a simulation failure costs a
// lookup, and then the paying token account's balance decides between the payer's fault and a fault of the payment.
import { describe, expect, it } from "vitest";
import type { PaymentRequirements } from "@x402/core/types";
import { SHIPPED_NETWORKS } from "../verify";
import { fakeSolanaRpc, solanaPayment, type FakeSolanaLedger } from "../test/support/fakes/fake-solana";
import { classifyVerifyFailure, findTransfer } from "./classify-verify-failure";

const devnet = SHIPPED_NETWORKS.get("solana-devnet");
const accepted: PaymentRequirements = {
  scheme: "exact",
  network: devnet.caip2 as PaymentRequirements["network"],
  asset: devnet.usdcAsset,
  amount: "10000",
  payTo: "FakePayee1111111111111111111111111111111111",
  maxTimeoutSeconds: 120,
  extra: {},
};
const FEE_PAYER = "FakeFeePayer1111111111111111111111111111111";

async function world(balance: bigint | null) {
  const payment = await solanaPayment({ accepted, feePayer: FEE_PAYER, amount: 10_000n });
  const ledger: FakeSolanaLedger = {
    balances: new Map(balance === null ? [] : [[payment.source, balance]]),
    calls: [],
  };
  return { payment, ledger, rpc: fakeSolanaRpc(ledger) };
}

describe("classifyVerifyFailure()", () => {
  it("reads the transfer's source token account and amount from the payer's transaction", async () => {
    const { payment } = await world(0n);
    expect(findTransfer(payment.payload)).toEqual({ source: payment.source, amount: 10_000n });
  });

  it.each([
    ["holds less than the transfer", "insufficient_balance", 9_999n],
    ["holds no such token account", "insufficient_balance", null],
    ["holds enough (the simulation failed for another reason)", "payment_invalid", 10_000n],
  ] as const)(
    "classifies a failed simulation whose paying account %s as %s, from one balance read",
    async (_what, reason, balance) => {
      const { payment, ledger, rpc } = await world(balance);
      expect(await classifyVerifyFailure(payment.payload, "transaction_simulation_failed", rpc)).toBe(reason);
      expect(ledger.calls).toEqual(["getTokenAccountBalance"]);
    },
  );

  it.each([
    [
      "a blockhash the cluster no longer knows",
      "payment_expired",
      "transaction_simulation_failed",
      "Blockhash not found",
    ],
    ["a refusal that names insufficient funds", "insufficient_balance", "insufficient_funds", undefined],
    ["any other refusal", "payment_invalid", "invalid_exact_svm_payload_transaction_instructions", undefined],
  ] as const)("classifies %s as %s without asking the chain", async (_what, reason, invalidReason, invalidMessage) => {
    const { payment, ledger, rpc } = await world(0n);
    expect(await classifyVerifyFailure(payment.payload, invalidReason, rpc, invalidMessage)).toBe(reason);
    expect(ledger.calls).toEqual([]);
  });
});
