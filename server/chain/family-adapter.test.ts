import type { PaymentPayload, SettleResponse, VerifyResponse } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import type { Facilitator } from "../facilitator/create-facilitator";
import { CHAIN_FAMILY_FACTS } from "../verify/chain-family-facts";
import { SHIPPED_NETWORKS, type NetworkFamily } from "../verify";
import { CHAIN_FAMILY_ADAPTERS, familyAdapter } from "./family-adapter";

const SVM = CHAIN_FAMILY_ADAPTERS.svm;
const EVM = CHAIN_FAMILY_ADAPTERS.evm;
const TX = "0x" + "ab".repeat(32);

/** An object every property of which throws: a dependency that must not be touched. */
const untouchable = <T>(what: string): T =>
  new Proxy(
    {},
    {
      get: (_t, key) => {
        throw new Error(`${what}.${String(key)} must not be used`);
      },
    },
  ) as T;
const mustNotCall = (what: string) => () => {
  throw new Error(`${what} must not be called`);
};

/** A facilitator with the given Solana RPCs and EVM clients (each an untouchable unless given), and a forgetSimulation log. */
function facilitatorWith(parts: { rpcs?: Record<string, unknown>; clients?: Record<string, unknown> } = {}) {
  const forgotten: [string, string][] = [];
  const facilitator = {
    networks: SHIPPED_NETWORKS,
    rpcs: parts.rpcs ?? {},
    evm: parts.clients ? { clients: parts.clients } : null,
    forgetSimulation: (transaction: string, network: string) => forgotten.push([transaction, network]),
    confirmWaitMs: 5_000,
  } as unknown as Facilitator;
  return { facilitator, forgotten };
}

const payloadOf = (inner: Record<string, unknown>) => ({ x402Version: 2, payload: inner }) as unknown as PaymentPayload;
const valid: VerifyResponse = { isValid: true, payer: "0x01" } as VerifyResponse;
const invalid: VerifyResponse = {
  isValid: false,
  invalidReason: "insufficient_funds",
  payer: "0x01",
} as VerifyResponse;

describe("CHAIN_FAMILY_ADAPTERS", () => {
  it("holds one adapter per family, each carrying its family's facts", () => {
    expect(Object.keys(CHAIN_FAMILY_ADAPTERS).sort()).toEqual(Object.keys(CHAIN_FAMILY_FACTS).sort());
    for (const family of Object.keys(CHAIN_FAMILY_FACTS) as NetworkFamily[]) {
      const { normalizeAddress: _n, configuredDeposit: _c, depositProblem: _d, ...facts } = CHAIN_FAMILY_FACTS[family];
      expect(CHAIN_FAMILY_ADAPTERS[family]).toMatchObject(facts);
      expect(CHAIN_FAMILY_ADAPTERS[family].depositProblem).toBe(CHAIN_FAMILY_FACTS[family].depositProblem);
    }
  });
});

describe("familyAdapter()", () => {
  it("picks every shipped row's family's adapter", () => {
    for (const row of SHIPPED_NETWORKS.rows) expect(familyAdapter(row)).toBe(CHAIN_FAMILY_ADAPTERS[row.family]);
  });

  it("rejects malformed input: a family without an adapter", () => {
    expect(() => familyAdapter({ family: "cosmos" as NetworkFamily })).toThrow(RangeError);
    expect(() => familyAdapter({ family: "constructor" as NetworkFamily })).toThrow(RangeError);
  });
});

describe("rebroadcastGapMs()", () => {
  it("lets Solana send its identical transaction again after the base gap", () => {
    expect(SVM.rebroadcastGapMs(2_000, 30_000)).toBe(2_000);
  });

  it("keeps an EVM authorization from being sent again while settle may still be waiting for its receipt", () => {
    expect(EVM.rebroadcastGapMs(2_000, 30_000)).toBe(32_000);
  });
});

describe("recheckBeforeSend()", () => {
  it("Solana: makes settle simulate afresh and goes ahead, without a verification of its own", async () => {
    const { facilitator, forgotten } = facilitatorWith();
    expect(
      await SVM.recheckBeforeSend(
        facilitator,
        payloadOf({ transaction: "d2lyZQ==" }),
        "solana:x",
        mustNotCall("verify"),
      ),
    ).toEqual({ proceed: true });
    expect(forgotten).toEqual([["d2lyZQ==", "solana:x"]]);
  });

  it("Solana: forgets nothing for a payload without a transaction", async () => {
    const { facilitator, forgotten } = facilitatorWith();
    expect(await SVM.recheckBeforeSend(facilitator, payloadOf({}), "solana:x", mustNotCall("verify"))).toEqual({
      proceed: true,
    });
    expect(forgotten).toEqual([]);
  });

  it("EVM: verifies again, and goes ahead only on a valid verdict", async () => {
    const { facilitator, forgotten } = facilitatorWith();
    const payload = payloadOf({ authorization: {} });
    expect(await EVM.recheckBeforeSend(facilitator, payload, "eip155:8453", async () => valid)).toEqual({
      proceed: true,
    });
    expect(await EVM.recheckBeforeSend(facilitator, payload, "eip155:8453", async () => invalid)).toEqual({
      proceed: false,
      verdict: invalid,
    });
    expect(await EVM.recheckBeforeSend(facilitator, payload, "eip155:8453", async () => null)).toEqual({
      proceed: false,
      verdict: null,
    });
    expect(forgotten).toEqual([]);
  });
});

describe("awaitOwnRelay", () => {
  it("is Solana's null: nobody broadcasts a Solana settlement for the service", () => {
    expect(SVM.awaitOwnRelay).toBeNull();
  });

  it("EVM: waits up to the wait for the relayed transaction's receipt, and not at all with no wait", async () => {
    const waits: unknown[] = [];
    const client = { waitForTransactionReceipt: async (args: unknown) => void waits.push(args) };
    const { facilitator } = facilitatorWith({ clients: { base: client } });
    await EVM.awaitOwnRelay!(facilitator, "base", TX, 1_500);
    await EVM.awaitOwnRelay!(facilitator, "base", TX, 0);
    expect(waits).toEqual([{ hash: TX, timeout: 1_500 }]);
  });

  it("EVM: a wait that fails (timed out, RPC down) is not an error: the chain is read again after it", async () => {
    const client = { waitForTransactionReceipt: async () => Promise.reject(new Error("timeout")) };
    const { facilitator } = facilitatorWith({ clients: { base: client } });
    await expect(EVM.awaitOwnRelay!(facilitator, "base", TX, 10)).resolves.toBeUndefined();
  });
});

describe("rebroadcast()", () => {
  const pending = { payload: payloadOf({ authorization: {} }), transaction: TX, blockhash: null };

  it("EVM: a settlement that lands again is landed with its transaction", async () => {
    const { facilitator } = facilitatorWith();
    const settled = { success: true, transaction: "0x" + "cd".repeat(32) } as SettleResponse;
    expect(await EVM.rebroadcast(facilitator, "base", pending, 0, async () => settled)).toEqual({
      landed: true,
      transaction: settled.transaction,
    });
  });

  it("EVM: a new transaction still pending is looked for under its own hash; none sent keeps the old one", async () => {
    const { facilitator } = facilitatorWith();
    const renamed = { success: false, transaction: "0x" + "ef".repeat(32) } as SettleResponse;
    expect(await EVM.rebroadcast(facilitator, "base", pending, 0, async () => renamed)).toEqual({
      landed: false,
      transaction: renamed.transaction,
    });
    expect(
      await EVM.rebroadcast(
        facilitator,
        "base",
        pending,
        0,
        async () => ({ success: false, transaction: "" }) as SettleResponse,
      ),
    ).toEqual({ landed: false, transaction: TX });
    expect(await EVM.rebroadcast(facilitator, "base", pending, 0, async () => null)).toEqual({
      landed: false,
      transaction: TX,
    });
  });

  it("Solana: never settles again (the identical transaction is resent), and without its RPC sends nothing", async () => {
    const { facilitator } = facilitatorWith();
    const svmPending = { payload: payloadOf({}), transaction: "sig", blockhash: "hash" };
    expect(await SVM.rebroadcast(facilitator, "solana-devnet", svmPending, 0, mustNotCall("settleAgain"))).toEqual({
      landed: false,
      transaction: "sig",
    });
  });
});

describe("settlementExpired()", () => {
  it("EVM: expired once the chain's head is at or past validBefore", async () => {
    const at = (seconds: bigint) =>
      facilitatorWith({ clients: { base: { getBlock: async () => ({ timestamp: seconds }) } } }).facilitator;
    const validBefore = new Date(1_800_000_000_000);
    expect(await EVM.settlementExpired(at(1_799_999_999n), "base", { blockhash: null, validBefore })).toBe(false);
    expect(await EVM.settlementExpired(at(1_800_000_000n), "base", { blockhash: null, validBefore })).toBe(true);
    expect(await EVM.settlementExpired(at(1_900_000_000n), "base", { blockhash: null, validBefore: null })).toBe(false);
  });

  it("Solana: expired once its blockhash is no longer valid", async () => {
    const withValid = (value: boolean) =>
      facilitatorWith({ rpcs: { "solana-devnet": { isBlockhashValid: () => ({ send: async () => ({ value }) }) } } })
        .facilitator;
    expect(
      await SVM.settlementExpired(withValid(true), "solana-devnet", { blockhash: "hash", validBefore: null }),
    ).toBe(false);
    expect(
      await SVM.settlementExpired(withValid(false), "solana-devnet", { blockhash: "hash", validBefore: null }),
    ).toBe(true);
    expect(await SVM.settlementExpired(withValid(false), "solana-devnet", { blockhash: null, validBefore: null })).toBe(
      false,
    );
  });

  it("throws for a network without its RPC (the chain cannot be read)", async () => {
    const { facilitator } = facilitatorWith();
    await expect(
      SVM.settlementExpired(facilitator, "solana-devnet", { blockhash: null, validBefore: null }),
    ).rejects.toThrow(/no RPC/);
    await expect(EVM.settlementExpired(facilitator, "base", { blockhash: null, validBefore: null })).rejects.toThrow(
      /no RPC/,
    );
  });
});

describe("findLandedSettlement()", () => {
  it("is absent for a payload that carries nothing to look up, without asking the chain", async () => {
    const svm = facilitatorWith({ rpcs: { "solana-devnet": untouchable("rpc") } }).facilitator;
    const evm = facilitatorWith({ clients: { base: untouchable("client") } }).facilitator;
    expect(await SVM.findLandedSettlement(svm, "solana-devnet", payloadOf({}))).toEqual({ state: "absent" });
    expect(await EVM.findLandedSettlement(evm, "base", payloadOf({ permit2Authorization: {} }))).toEqual({
      state: "absent",
    });
  });

  it("throws for a network without its RPC", async () => {
    const { facilitator } = facilitatorWith();
    await expect(SVM.findLandedSettlement(facilitator, "solana-devnet", payloadOf({}))).rejects.toThrow(/no RPC/);
    await expect(EVM.findLandedSettlement(facilitator, "base", payloadOf({}))).rejects.toThrow(/no RPC/);
  });
});

describe("findReorgedPayments()", () => {
  it("Solana: none, without reading the chain (a confirmed Solana transaction is not rolled back)", async () => {
    const { facilitator } = facilitatorWith({ rpcs: { "solana-devnet": untouchable("rpc") } });
    expect(
      await SVM.findReorgedPayments(facilitator, "solana-devnet", [{ id: "p", txSignature: "sig", units: 1n }]),
    ).toEqual([]);
  });

  it("EVM: a settled transaction without a receipt is reorged", async () => {
    const notFound = Object.assign(new Error("not found"), { name: "TransactionReceiptNotFoundError" });
    const client = { getTransactionReceipt: async () => Promise.reject(notFound), getTransaction: async () => null };
    const { facilitator } = facilitatorWith({ clients: { base: client } });
    const reorged = await EVM.findReorgedPayments(facilitator, "base", [{ id: "p", txSignature: TX, units: 1n }]);
    expect(reorged.map((r) => r.transaction)).toEqual([TX]);
  });
});
