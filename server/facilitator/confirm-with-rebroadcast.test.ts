import type { Rpc, SolanaRpcApi } from "@solana/kit";
import type { FacilitatorSvmSigner } from "@x402/svm";
import { systemClock } from "../clock";
import { describe, expect, it, vi } from "vitest";
import {
  awaitSolanaConfirmation,
  blockhashOfWire,
  confirmWithRebroadcast,
  MAX_SIGNATURES_PER_CALL,
  POLL_MS,
} from "./confirm-with-rebroadcast";

type Status = { confirmationStatus: "processed" | "confirmed" | "finalized"; err: unknown } | null;

/** An RPC whose answers the test scripts, recording the order of the calls and the signatures each status read named. */
function scriptedRpc(answer: { valid: (blockhash: string) => boolean; status: (signature: string) => Status }) {
  const calls: string[] = [];
  const statusReads: string[][] = [];
  const rpc = {
    isBlockhashValid: (blockhash: string) => ({
      send: async () => (calls.push("isBlockhashValid"), { value: answer.valid(blockhash) }),
    }),
    getSignatureStatuses: (signatures: string[], opts: { searchTransactionHistory?: boolean }) => ({
      send: async () => {
        if (!opts.searchTransactionHistory) throw new Error("must search the transaction history");
        if (signatures.length > MAX_SIGNATURES_PER_CALL) throw new Error(`${signatures.length} signatures in one call`);
        calls.push("getSignatureStatuses");
        statusReads.push([...signatures]);
        return { value: signatures.map((s) => answer.status(s)) };
      },
    }),
    sendTransaction: () => ({ send: async () => (calls.push("sendTransaction"), "sig") }),
  };
  return { rpc: rpc as unknown as Rpc<SolanaRpcApi>, calls, statusReads };
}

const tx = { signature: "sig", wire: "d2lyZQ==", blockhash: "hash" };

describe("awaitSolanaConfirmation()", () => {
  it("reads the status again after an expired blockhash, so a transaction landing in between is confirmed, not expired", async () => {
    let landed = false;
    const { rpc, calls } = scriptedRpc({
      valid: () => {
        landed = true; // lands right after the first status read, as the blockhash expires
        return false;
      },
      status: () => (landed ? { confirmationStatus: "confirmed", err: null } : null),
    });
    expect(await awaitSolanaConfirmation(rpc, tx, 1_000, systemClock)).toEqual({ state: "confirmed" });
    expect(calls).toEqual(["getSignatureStatuses", "isBlockhashValid", "getSignatureStatuses"]);
  });

  it("asks one thing of the RPC when the transaction has confirmed: its status", async () => {
    const { rpc, calls } = scriptedRpc({
      valid: () => {
        throw new Error("the blockhash of a confirmed transaction must not be asked about");
      },
      status: () => ({ confirmationStatus: "confirmed", err: null }),
    });
    expect(await awaitSolanaConfirmation(rpc, tx, 1_000, systemClock)).toEqual({ state: "confirmed" });
    expect(calls).toEqual(["getSignatureStatuses"]);
  });

  it("ends the wait at once when the blockhash expired and the signature is absent", async () => {
    const { rpc } = scriptedRpc({ valid: () => false, status: () => null });
    const started = Date.now();
    expect(await awaitSolanaConfirmation(rpc, tx, 5_000, systemClock)).toEqual({ state: "expired" });
    // Well inside the 5 s it would otherwise wait, however loaded the machine.
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("reports a confirmed transaction with an error as failed, and waits past a processed one", async () => {
    const failed = scriptedRpc({
      valid: () => true,
      status: () => ({ confirmationStatus: "confirmed", err: { InstructionError: [0, 1n] } }),
    });
    expect(await awaitSolanaConfirmation(failed.rpc, tx, 1_000, systemClock)).toMatchObject({ state: "failed" });
    const processed = scriptedRpc({
      valid: () => false,
      status: () => ({ confirmationStatus: "processed", err: null }),
    });
    expect(await awaitSolanaConfirmation(processed.rpc, tx, 300, systemClock)).toEqual({ state: "pending" });
  });

  it("sends the same wire again every 2 s while it waits, and is pending when the wait runs out", async () => {
    const { rpc, calls } = scriptedRpc({ valid: () => true, status: () => null });
    expect(await awaitSolanaConfirmation(rpc, tx, 2_500, systemClock)).toEqual({ state: "pending" });
    expect(calls.filter((c) => c === "sendTransaction")).toHaveLength(1);
  });

  it("asks about every wait of the process together: 300 settlements confirmed in two status reads", async () => {
    const { rpc, statusReads, calls } = scriptedRpc({
      valid: () => {
        throw new Error("no blockhash is asked about when every transaction has landed");
      },
      status: () => ({ confirmationStatus: "confirmed", err: null }),
    });
    const waits = Array.from({ length: 300 }, (_, i) =>
      awaitSolanaConfirmation(rpc, { ...tx, signature: `sig-${i}` }, 1_000, systemClock),
    );
    expect(await Promise.all(waits)).toEqual(Array.from({ length: 300 }, () => ({ state: "confirmed" })));
    expect(calls).toEqual(["getSignatureStatuses", "getSignatureStatuses"]);
    expect(statusReads.map((r) => r.length)).toEqual([MAX_SIGNATURES_PER_CALL, 300 - MAX_SIGNATURES_PER_CALL]);
  });

  it("gathers the polls of waits started at different times, so they share status reads", async () => {
    // On the test's own clock: the batching is about timers, and a loaded machine must not move them.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "Date"] });
    try {
      let landed = false;
      const { rpc, statusReads } = scriptedRpc({
        valid: () => true,
        status: () => (landed ? { confirmationStatus: "confirmed", err: null } : null),
      });
      const waits: Promise<{ state: string }>[] = [];
      for (let i = 0; i < 10; i++) {
        waits.push(awaitSolanaConfirmation(rpc, { ...tx, signature: `late-${i}` }, 5_000, systemClock));
        await vi.advanceTimersByTimeAsync(2);
      }
      await vi.advanceTimersByTimeAsync(3 * POLL_MS);
      landed = true;
      await vi.advanceTimersByTimeAsync(2 * POLL_MS);
      expect((await Promise.all(waits)).map((o) => o.state)).toEqual(Array.from({ length: 10 }, () => "confirmed"));
      // Each wait's first look is its own (10 reads); later polls within COALESCE_MS of each other share one read.
      const later = statusReads.slice(10);
      expect(later.length).toBeLessThanOrEqual(6);
      expect(later.filter((r) => r.length === 10).length).toBeGreaterThanOrEqual(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("asks about each distinct blockhash once per poll, and only for the transactions not landed", async () => {
    const asked: string[] = [];
    const { rpc } = scriptedRpc({
      valid: (blockhash) => (asked.push(blockhash), blockhash !== "old"),
      status: (signature) => (signature.startsWith("landed") ? { confirmationStatus: "confirmed", err: null } : null),
    });
    const outcomes = await Promise.all([
      awaitSolanaConfirmation(rpc, { ...tx, signature: "landed-1", blockhash: "old" }, 1_000, systemClock),
      awaitSolanaConfirmation(rpc, { ...tx, signature: "gone-1", blockhash: "old" }, 1_000, systemClock),
      awaitSolanaConfirmation(rpc, { ...tx, signature: "gone-2", blockhash: "old" }, 1_000, systemClock),
      awaitSolanaConfirmation(rpc, { ...tx, signature: "waiting", blockhash: "new" }, 100, systemClock),
    ]);
    expect(outcomes.map((o) => o.state)).toEqual(["confirmed", "expired", "expired", "pending"]);
    expect(asked.filter((b) => b === "old")).toHaveLength(1);
  });

  it("keeps waiting through RPC errors", async () => {
    let n = 0;
    const { rpc } = scriptedRpc({
      valid: () => {
        if (n++ < 2) throw new Error("503");
        return true;
      },
      status: () => ({ confirmationStatus: "finalized", err: null }),
    });
    expect(await awaitSolanaConfirmation(rpc, tx, 2_000, systemClock)).toEqual({ state: "confirmed" });
  });
});

describe("blockhashOfWire()", () => {
  it("rejects malformed input", () => {
    for (const bad of [
      "",
      "not base64 at all!",
      Buffer.from("short").toString("base64"),
      Buffer.alloc(300, 7).toString("base64"),
    ]) {
      expect(blockhashOfWire(bad)).toBeNull();
    }
  });
});

describe("confirmWithRebroadcast()", () => {
  const refuse = () => {
    throw new Error("must not be called");
  };
  it("leaves a signature it did not send (or whose bytes are no transaction) to the signer's own wait", async () => {
    const seen: string[] = [];
    const signer = {
      sendTransaction: async () => "sent-sig",
      confirmTransaction: async (signature: string) => void seen.push(signature),
      simulateTransaction: refuse,
    } as unknown as FacilitatorSvmSigner;
    const wrapped = confirmWithRebroadcast(signer, {}, 100, systemClock);
    await wrapped.confirmTransaction("unknown", "solana:x");
    await wrapped.sendTransaction("bm90IGEgdHg=", "solana:x");
    await wrapped.confirmTransaction("sent-sig", "solana:x");
    expect(seen).toEqual(["unknown", "sent-sig"]);
  });
});
