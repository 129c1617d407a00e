import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import type { PaymentPayload } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { solanaFeeLamports } from "./settlement-fee";

const COMPUTE_BUDGET = address("ComputeBudget111111111111111111111111111111");
/** ComputeBudget's SetComputeUnitLimit (tag 2, u32) and SetComputeUnitPrice (tag 3, u64), little-endian. */
function computeBudget(tag: 2 | 3, value: bigint) {
  const data = new Uint8Array(tag === 2 ? 5 : 9);
  const view = new DataView(data.buffer);
  data[0] = tag;
  if (tag === 2) view.setUint32(1, Number(value), true);
  else view.setBigUint64(1, value, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

async function payload(budget: { limit?: number; price?: bigint }): Promise<PaymentPayload> {
  const feePayer = await generateKeyPairSigner();
  const agent = await generateKeyPairSigner();
  const instructions = [
    ...(budget.limit !== undefined ? [computeBudget(2, BigInt(budget.limit))] : []),
    ...(budget.price !== undefined ? [computeBudget(3, budget.price)] : []),
    getTransferSolInstruction({ source: agent, destination: feePayer.address, amount: 1n }),
  ];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: "11111111111111111111111111111111" as Blockhash, lastValidBlockHeight: 10n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return {
    x402Version: 2,
    payload: { transaction: getBase64EncodedWireTransaction(compileTransaction(message)) },
  } as unknown as PaymentPayload;
}

describe("solanaFeeLamports()", () => {
  it("is 5,000 lamports per signature plus limit × price, rounded up to the lamport", async () => {
    expect(solanaFeeLamports(await payload({ limit: 20_000, price: 1n }))).toBe(10_000n + 1n);
    expect(solanaFeeLamports(await payload({ limit: 50_000, price: 50_000n }))).toBe(10_000n + 2_500n);
  });

  it("takes the default compute limit and no priority fee when the message sets neither", async () => {
    expect(solanaFeeLamports(await payload({}))).toBe(10_000n);
  });

  it("rejects malformed input: null for anything that is not a Solana transaction", () => {
    expect(
      solanaFeeLamports({ payload: { transaction: "not a transaction" } } as unknown as PaymentPayload),
    ).toBeNull();
    expect(solanaFeeLamports({ payload: { authorization: {} } } as unknown as PaymentPayload)).toBeNull();
  });
});
