import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { FacilitatorSvmSigner } from "@x402/svm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { systemClock } from "../clock";
import { createSvmScheme } from "./create-facilitator";
import { oneSimulationPerPayment } from "./one-simulation-per-payment";
import { oneVerifyPerPayment } from "./one-verify-per-payment";
import { createSvmSchemeV1 } from "./svm-v1-scheme";
import { SHIPPED_NETWORKS } from "../verify";

const NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const USDC = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
const COMPUTE_BUDGET = address("ComputeBudget111111111111111111111111111111");
const LIGHTHOUSE = address("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95");
const MEMO = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const SYSTEM = address("11111111111111111111111111111111");
const PRICE = 1_000n;

let feePayer: KeyPairSigner;
let agent: KeyPairSigner;
beforeAll(async () => {
  feePayer = await generateKeyPairSigner();
  agent = await generateKeyPairSigner();
});

/** The facilitator's signer with a chain behind it that must never be asked: any call throws. */
function signerThatMustNotSimulate(): FacilitatorSvmSigner {
  const never = (what: string) => () => {
    throw new Error(`${what} must not be called for a refused payment`);
  };
  return {
    getAddresses: () => [feePayer.address],
    signTransaction: never("signTransaction"),
    simulateTransaction: never("simulateTransaction"),
    sendTransaction: never("sendTransaction"),
    confirmTransaction: never("confirmTransaction"),
  } as unknown as FacilitatorSvmSigner;
}

/** A signer whose chain accepts every simulation, and counts them. */
function signerThatSimulates() {
  const simulated: string[] = [];
  const signer = {
    ...signerThatMustNotSimulate(),
    simulateTransaction: async (tx: string) => {
      simulated.push(tx);
    },
  } as FacilitatorSvmSigner;
  return { signer, simulated };
}

function computeLimit(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

function computePrice(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

async function transfer(
  overrides: { source?: Address; authority?: KeyPairSigner | Address } = {},
): Promise<Instruction> {
  const [source] = await findAssociatedTokenPda({
    mint: USDC,
    owner: agent.address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const [destination] = await findAssociatedTokenPda({
    mint: USDC,
    owner: feePayer.address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const authority = overrides.authority ?? agent;
  const ix = getTransferCheckedInstruction({
    source: overrides.source ?? source,
    mint: USDC,
    destination,
    authority: typeof authority === "string" ? authority : authority,
    amount: PRICE,
    decimals: 6,
  });
  return ix as Instruction;
}

/** Lighthouse MemoryWrite: [lighthouse program, memory (w), payer (w, signer), system program]; the bytes are opaque to the check. */
function lighthouseMemoryWrite(payer: Address): Instruction {
  return {
    programAddress: LIGHTHOUSE,
    accounts: [
      { address: LIGHTHOUSE, role: AccountRole.READONLY },
      { address: address("Sysvar1nstructions1111111111111111111111111"), role: AccountRole.WRITABLE },
      { address: payer, role: AccountRole.WRITABLE_SIGNER },
      { address: SYSTEM, role: AccountRole.READONLY },
    ],
    data: new Uint8Array([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 42]),
  };
}

function memo(text: string, signers: Address[] = []): Instruction {
  return {
    programAddress: MEMO,
    accounts: signers.map((a) => ({ address: a, role: AccountRole.READONLY_SIGNER })),
    data: new TextEncoder().encode(text),
  };
}

/** A payment as a client sends it: partially signed by the agent, the fee payer's signature left for the facilitator. */
async function payment(
  instructions: Instruction[],
): Promise<{ payload: PaymentPayload; requirements: PaymentRequirements }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: "11111111111111111111111111111111" as Blockhash, lastValidBlockHeight: 1000n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  const requirements: PaymentRequirements = {
    scheme: "exact",
    network: NETWORK,
    amount: PRICE.toString(),
    asset: USDC,
    payTo: feePayer.address,
    maxTimeoutSeconds: 120,
    extra: { feePayer: feePayer.address },
  };
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: requirements,
    payload: { transaction: getBase64EncodedWireTransaction(signed) },
  };
  return { payload, requirements };
}

const budget = () => [computeLimit(20_000), computePrice(1n)];

describe("the exact SVM scheme as Signet registers it", () => {
  it("verifies a stock-shaped payment (limit, price, TransferChecked, memo) after one simulation", async () => {
    const { signer, simulated } = signerThatSimulates();
    const { payload, requirements } = await payment([...budget(), await transfer(), memo("0123456789abcdef")]);
    const verdict = await createSvmScheme(signer).verify(payload, requirements);
    expect(verdict).toMatchObject({ isValid: true, payer: agent.address });
    expect(simulated).toHaveLength(1);
  });

  it("settles on verify's verdict once: one simulation in all with no simulation memory, two once it is forgotten", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const { payload, requirements } = await payment([...budget(), await transfer()]);
      // The signer refuses to sign, so settle stops right after its verification.
      const settleStops = { success: false, errorReason: "invalid_exact_svm_transaction_failed" };
      const remembered = signerThatSimulates();
      const verifications = oneVerifyPerPayment(systemClock);
      const scheme = createSvmScheme(remembered.signer, verifications);
      expect(await scheme.verify(payload, requirements)).toMatchObject({ isValid: true });
      expect(await scheme.settle(payload, requirements)).toMatchObject(settleStops);
      expect(remembered.simulated).toHaveLength(1);

      expect(await scheme.verify(payload, requirements)).toMatchObject({ isValid: true });
      verifications.forget(payload.payload.transaction as string, NETWORK);
      expect(await scheme.settle(payload, requirements)).toMatchObject(settleStops);
      expect(remembered.simulated).toHaveLength(3);

      // The stock scheme alone simulates at verify and again at settle.
      const stock = signerThatSimulates();
      const plain = createSvmScheme(stock.signer);
      await plain.verify(payload, requirements);
      expect(await plain.settle(payload, requirements)).toMatchObject(settleStops);
      expect(stock.simulated).toHaveLength(2);
    } finally {
      quiet.mockRestore();
    }
  });

  it("leaves no simulation for a later look at the same bytes once settle used verify's verdict", async () => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const { payload, requirements } = await payment([...budget(), await transfer()]);
      const { signer, simulated } = signerThatSimulates();
      const reusing = oneSimulationPerPayment(signer, systemClock);
      const scheme = createSvmScheme(reusing, oneVerifyPerPayment(systemClock, reusing.forgetSimulation));
      await scheme.verify(payload, requirements);
      await scheme.settle(payload, requirements);
      expect(simulated).toHaveLength(1);
      await reusing.simulateTransaction(payload.payload.transaction as string, NETWORK);
      expect(simulated).toHaveLength(2);
    } finally {
      quiet.mockRestore();
    }
  });

  it("refuses a Lighthouse MemoryWrite whose payer is the fee payer, as fee_payer_in_instruction, before any simulation", async () => {
    const { payload, requirements } = await payment([
      ...budget(),
      await transfer(),
      lighthouseMemoryWrite(feePayer.address),
    ]);
    const verdict = await createSvmScheme(signerThatMustNotSimulate()).verify(payload, requirements);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: "fee_payer_in_instruction" });
  });

  it("refuses the same transaction at settle, before anything is simulated, signed or sent", async () => {
    const { payload, requirements } = await payment([
      ...budget(),
      await transfer(),
      lighthouseMemoryWrite(feePayer.address),
    ]);
    const settled = await createSvmScheme(signerThatMustNotSimulate()).settle(payload, requirements);
    expect(settled).toMatchObject({ success: false, errorReason: "fee_payer_in_instruction", transaction: "" });
  });

  it.each([
    [
      "a memo that names the fee payer as a signer",
      async () => [...budget(), await transfer(), memo("hi", [feePayer.address])],
    ],
    [
      "a transfer whose authority is the fee payer",
      async () => [...budget(), await transfer({ authority: feePayer.address })],
    ],
    [
      "a transfer whose source is the fee payer",
      async () => [...budget(), await transfer({ source: feePayer.address })],
    ],
  ])("refuses %s as fee_payer_in_instruction, before any simulation", async (_label, build) => {
    const { payload, requirements } = await payment(await build());
    const verdict = await createSvmScheme(signerThatMustNotSimulate()).verify(payload, requirements);
    expect(verdict).toMatchObject({ isValid: false, invalidReason: "fee_payer_in_instruction" });
  });

  it("still lets a Lighthouse instruction that leaves the fee payer out reach simulation", async () => {
    const { signer, simulated } = signerThatSimulates();
    const { payload, requirements } = await payment([
      ...budget(),
      await transfer(),
      lighthouseMemoryWrite(agent.address),
    ]);
    expect(await createSvmScheme(signer).verify(payload, requirements)).toMatchObject({ isValid: true });
    expect(simulated).toHaveLength(1);
  });

  it("rejects malformed input: a transaction that is not base64 wire bytes", async () => {
    const { payload, requirements } = await payment([...budget(), await transfer()]);
    const verdict = await createSvmScheme(signerThatMustNotSimulate()).verify(
      { ...payload, payload: { transaction: "not a transaction" } },
      requirements,
    );
    expect(verdict.isValid).toBe(false);
  });
});

describe("the exact SVM scheme for x402 v1 as Signet registers it", () => {
  const limits = { maxComputeUnits: 50_000, maxPriorityFeeMicroLamports: 50_000, maxRequiredSignatures: 2 };

  /** The same payment in x402 v1's form: the payload names the v1 network, the requirement `maxAmountRequired`. */
  async function paymentV1(instructions: Instruction[]) {
    const { payload, requirements } = await payment(instructions);
    return {
      payload: {
        x402Version: 1,
        scheme: "exact",
        network: "solana-devnet",
        payload: payload.payload,
      } as unknown as PaymentPayload,
      requirements: {
        ...requirements,
        network: "solana-devnet",
        maxAmountRequired: PRICE.toString(),
        resource: "http://signet.test/api/v1/chat/completions",
        description: "",
      } as unknown as PaymentRequirements,
    };
  }

  it("verifies a stock-shaped v1 payment after one simulation, on the network's CAIP-2 id", async () => {
    const networks: string[] = [];
    const { signer } = signerThatSimulates();
    const { payload, requirements } = await paymentV1([...budget(), await transfer()]);
    const verdict = await createSvmSchemeV1(
      {
        ...signer,
        simulateTransaction: async (_tx: string, network: string) => void networks.push(network),
      } as FacilitatorSvmSigner,
      limits,
      SHIPPED_NETWORKS,
    ).verify(payload, requirements);
    expect(verdict).toMatchObject({ isValid: true, payer: agent.address });
    expect(networks).toEqual([NETWORK]);
  });

  it.each([
    [
      "more compute units than the fee payer allows",
      [computeLimit(1_400_000), computePrice(1n)],
      "compute_unit_limit_too_high",
    ],
    [
      "a unit price the stock v1 scheme allows but the fee payer does not",
      [computeLimit(20_000), computePrice(5_000_000n)],
      "compute_unit_price_too_high",
    ],
  ])("refuses %s, before any simulation", async (_label, budgetIxs, reason) => {
    const { payload, requirements } = await paymentV1([...budgetIxs, await transfer()]);
    const scheme = createSvmSchemeV1(signerThatMustNotSimulate(), limits, SHIPPED_NETWORKS);
    expect(await scheme.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: reason });
    expect(await scheme.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: reason,
      transaction: "",
    });
  });

  it("refuses a v1 payment that names the fee payer in an instruction, before any simulation", async () => {
    const { payload, requirements } = await paymentV1([
      ...budget(),
      await transfer(),
      lighthouseMemoryWrite(feePayer.address),
    ]);
    expect(
      await createSvmSchemeV1(signerThatMustNotSimulate(), limits, SHIPPED_NETWORKS).verify(payload, requirements),
    ).toMatchObject({ isValid: false, invalidReason: "fee_payer_in_instruction" });
  });
});
