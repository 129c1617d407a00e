import type { FacilitatorSvmSigner } from "@x402/svm";
import { describe, expect, it } from "vitest";
import { manualClock } from "../test/support/manual-clock";
import { oneSimulationPerPayment } from "./one-simulation-per-payment";
import { FRESH_MS } from "./use-once-memory";

const NET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

/** A signer whose simulation is counted and can be told to fail; nothing else of it may be called. */
function countingSigner(fail: () => boolean = () => false) {
  const calls: string[] = [];
  const refuse = () => {
    throw new Error("not part of this test");
  };
  const signer = {
    getAddresses: refuse,
    signTransaction: refuse,
    sendTransaction: refuse,
    confirmTransaction: refuse,
    simulateTransaction: async (tx: string) => {
      calls.push(tx);
      if (fail()) throw new Error("Simulation failed: InsufficientFunds");
    },
  } as unknown as FacilitatorSvmSigner;
  return { signer, calls };
}

describe("oneSimulationPerPayment", () => {
  it("answers settle's simulation of the bytes verify just simulated, once", async () => {
    const { signer, calls } = countingSigner();
    const wrapped = oneSimulationPerPayment(signer, manualClock());
    await wrapped.simulateTransaction("tx-a", NET); // verify
    await wrapped.simulateTransaction("tx-a", NET); // settle's re-verify: reused
    expect(calls).toEqual(["tx-a"]);
    await wrapped.simulateTransaction("tx-a", NET); // a third look asks the chain again
    expect(calls).toEqual(["tx-a", "tx-a"]);
  });

  it("never reuses across transactions or networks", async () => {
    const { signer, calls } = countingSigner();
    const wrapped = oneSimulationPerPayment(signer, manualClock());
    await wrapped.simulateTransaction("tx-a", NET);
    await wrapped.simulateTransaction("tx-b", NET);
    await wrapped.simulateTransaction("tx-a", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
    expect(calls).toEqual(["tx-a", "tx-b", "tx-a"]);
  });

  it("simulates again once the verify-time answer is older than FRESH_MS", async () => {
    const { signer, calls } = countingSigner();
    const clock = manualClock();
    const wrapped = oneSimulationPerPayment(signer, clock);
    await wrapped.simulateTransaction("tx-a", NET);
    clock.advance(FRESH_MS + 1);
    await wrapped.simulateTransaction("tx-a", NET);
    expect(calls).toHaveLength(2);
  });

  it("never remembers a failed simulation", async () => {
    let failing = true;
    const { signer, calls } = countingSigner(() => failing);
    const wrapped = oneSimulationPerPayment(signer, manualClock());
    await expect(wrapped.simulateTransaction("tx-a", NET)).rejects.toThrow(/InsufficientFunds/);
    await expect(wrapped.simulateTransaction("tx-a", NET)).rejects.toThrow(/InsufficientFunds/);
    failing = false;
    await wrapped.simulateTransaction("tx-a", NET);
    expect(calls).toHaveLength(3);
  });

  it("passes simulations with options straight through and never remembers them", async () => {
    const { signer, calls } = countingSigner();
    const wrapped = oneSimulationPerPayment(signer, manualClock());
    await wrapped.simulateTransaction("tx-a", NET, { sigVerify: true });
    await wrapped.simulateTransaction("tx-a", NET);
    await wrapped.simulateTransaction("tx-a", NET, { sigVerify: true });
    expect(calls).toEqual(["tx-a", "tx-a", "tx-a"]);
  });
});
