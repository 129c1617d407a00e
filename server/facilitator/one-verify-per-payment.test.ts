import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { describe, expect, it } from "vitest";
import { manualClock } from "../test/support/manual-clock";
import { FRESH_MS } from "./use-once-memory";
import { oneVerifyPerPayment } from "./one-verify-per-payment";

const NET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

const requirementsOn = (network: string, amount = "1000"): PaymentRequirements => ({
  scheme: "exact",
  network: network as PaymentRequirements["network"],
  amount,
  asset: "mint",
  payTo: "pay-to",
  maxTimeoutSeconds: 120,
  extra: { feePayer: "fee-payer" },
});
const paymentOf = (transaction: string, requirements: PaymentRequirements): PaymentPayload => ({
  x402Version: 2,
  accepted: requirements,
  payload: { transaction },
});

/** A scheme whose private verification is counted, and answers `valid()`; nothing else of it may be called. */
function countingScheme(valid: () => boolean = () => true) {
  const verified: string[] = [];
  const scheme = {
    _verify: async (payload: PaymentPayload) => {
      verified.push((payload.payload as { transaction: string }).transaction);
      return { response: valid() ? { isValid: true, payer: "agent" } : { isValid: false, invalidReason: "bad" } };
    },
  };
  const verify = (payload: PaymentPayload, requirements: PaymentRequirements) =>
    (scheme as unknown as { _verify: (p: PaymentPayload, r: PaymentRequirements) => Promise<unknown> })._verify(
      payload,
      requirements,
    );
  return { scheme: scheme as unknown as ExactSvmScheme, verify, verified };
}

describe("oneVerifyPerPayment", () => {
  it("answers settle's verification of the payment verify just verified with its verdict, once", async () => {
    const { scheme, verify, verified } = countingScheme();
    const used: string[] = [];
    oneVerifyPerPayment(manualClock(), (tx, network) => used.push(`${network} ${tx}`)).remember(scheme);
    const req = requirementsOn(NET);
    const first = await verify(paymentOf("tx-a", req), req); // verify
    expect(used).toEqual([]);
    expect(await verify(paymentOf("tx-a", req), requirementsOn(NET))).toBe(first); // settle's: the same verdict
    expect(verified).toEqual(["tx-a"]);
    // The verdict's simulation is dropped as settle's own simulation would have used it.
    expect(used).toEqual([`${NET} tx-a`]);
    await verify(paymentOf("tx-a", req), req); // a third look verifies again
    expect(verified).toEqual(["tx-a", "tx-a"]);
  });

  it("never reuses across transactions, networks, requirements or what the payer accepted", async () => {
    const { scheme, verify, verified } = countingScheme();
    oneVerifyPerPayment(manualClock()).remember(scheme);
    const req = requirementsOn(NET);
    // Each look differs from the one remembered before it in one thing, so each verifies in full.
    await verify(paymentOf("tx-a", req), req);
    await verify(paymentOf("tx-b", req), req);
    await verify(paymentOf("tx-a", req), requirementsOn(MAINNET));
    await verify(paymentOf("tx-a", req), requirementsOn(NET, "999"));
    await verify(paymentOf("tx-a", requirementsOn(MAINNET)), req);
    await verify(paymentOf("tx-a", req), req);
    expect(verified).toEqual(["tx-a", "tx-b", "tx-a", "tx-a", "tx-a", "tx-a"]);
  });

  it("verifies again once the verdict is older than FRESH_MS", async () => {
    const { scheme, verify, verified } = countingScheme();
    const clock = manualClock();
    oneVerifyPerPayment(clock).remember(scheme);
    const req = requirementsOn(NET);
    await verify(paymentOf("tx-a", req), req);
    clock.advance(FRESH_MS + 1);
    await verify(paymentOf("tx-a", req), req);
    expect(verified).toHaveLength(2);
  });

  it("never remembers an invalid verdict", async () => {
    let valid = false;
    const { scheme, verify, verified } = countingScheme(() => valid);
    oneVerifyPerPayment(manualClock()).remember(scheme);
    const req = requirementsOn(NET);
    await verify(paymentOf("tx-a", req), req);
    valid = true;
    expect(await verify(paymentOf("tx-a", req), req)).toMatchObject({ response: { isValid: true } });
    expect(verified).toHaveLength(2);
  });

  it("verifies in full again after forget, on that network only", async () => {
    const { scheme, verify, verified } = countingScheme();
    const memory = oneVerifyPerPayment(manualClock());
    memory.remember(scheme);
    const req = requirementsOn(NET);
    await verify(paymentOf("tx-a", req), req);
    memory.forget("tx-a", MAINNET);
    memory.forget("tx-b", NET);
    await verify(paymentOf("tx-a", req), req);
    expect(verified).toHaveLength(1);
    await verify(paymentOf("tx-a", req), req);
    memory.forget("tx-a", NET);
    await verify(paymentOf("tx-a", req), req);
    expect(verified).toHaveLength(3);
  });

  it("refuses, at start-up, a scheme with no private verification to remember", () => {
    expect(() => oneVerifyPerPayment(manualClock()).remember({} as ExactSvmScheme)).toThrow(/_verify/);
  });
});
