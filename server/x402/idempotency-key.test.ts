import {
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Blockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import type { PaymentPayload } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { paymentIdempotencyKey } from "./idempotency-key";

const accepted = {
  scheme: "exact",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
  amount: "1000",
  payTo: "x",
  maxTimeoutSeconds: 60,
  extra: {},
};

async function solanaPayload(lamports = 1n): Promise<{ payload: PaymentPayload; wire: Uint8Array }> {
  const feePayer = await generateKeyPairSigner();
  const agent = await generateKeyPairSigner();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: "11111111111111111111111111111111" as Blockhash, lastValidBlockHeight: 10n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        getTransferSolInstruction({ source: agent, destination: feePayer.address, amount: lamports }),
        m,
      ),
  );
  const compiled = compileTransaction(message);
  const signed = await signTransaction([agent.keyPair], compiled).catch(() => compiled);
  const base64 = getBase64EncodedWireTransaction(signed);
  return {
    payload: { x402Version: 2, accepted, payload: { transaction: base64 } } as unknown as PaymentPayload,
    wire: Buffer.from(base64, "base64"),
  };
}

describe("paymentIdempotencyKey()", () => {
  it("keys a Solana payment by its message, so other signature bytes or extra fields do not make a second payment", async () => {
    const { payload, wire } = await solanaPayload();
    // The fee payer's slot (first signature) filled with other bytes: another wire encoding of the same message.
    const reencoded = Uint8Array.from(wire);
    reencoded.fill(7, 1, 65);
    const other = {
      ...payload,
      payload: { transaction: Buffer.from(reencoded).toString("base64"), extra: "field" },
      accepted: { ...accepted, extra: { feePayer: "f" } },
    } as unknown as PaymentPayload;
    expect(paymentIdempotencyKey(payload)).toMatch(/^svm:[0-9a-f]{64}$/);
    expect(paymentIdempotencyKey(other)).toBe(paymentIdempotencyKey(payload));
  });

  it("gives two different Solana transactions two keys", async () => {
    expect(paymentIdempotencyKey((await solanaPayload(1n)).payload)).not.toBe(
      paymentIdempotencyKey((await solanaPayload(2n)).payload),
    );
  });

  it("keys an EIP-3009 payment by (network, token, from, nonce), whatever the letter case or signature", () => {
    const evm = (from: string, nonce: string, signature: string) =>
      ({
        x402Version: 2,
        accepted: { ...accepted, network: "eip155:84532", asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" },
        payload: {
          signature,
          authorization: { from, to: "0x1", value: "1000", validAfter: "0", validBefore: "9", nonce },
        },
      }) as unknown as PaymentPayload;
    const a = evm("0xAbCd", "0xFF01", "0xsig1");
    expect(paymentIdempotencyKey(a)).toBe("evm:eip155:84532:0x036cbd53842c5426634e7929541ec2318f3dcf7e:0xabcd:0xff01");
    expect(paymentIdempotencyKey(evm("0xabcd", "0xff01", "0xsig2"))).toBe(paymentIdempotencyKey(a));
    expect(paymentIdempotencyKey(evm("0xabcd", "0xff02", "0xsig1"))).not.toBe(paymentIdempotencyKey(a));
  });

  it("falls back to the canonical scheme payload for a shape it does not know (rejects malformed input into its own key space)", () => {
    const odd = {
      x402Version: 2,
      accepted,
      payload: { transaction: "not base64 of a transaction", b: 1 },
    } as unknown as PaymentPayload;
    const reordered = {
      x402Version: 2,
      accepted,
      payload: { b: 1, transaction: "not base64 of a transaction" },
    } as unknown as PaymentPayload;
    expect(paymentIdempotencyKey(odd)).toMatch(/^payload:[0-9a-f]{64}$/);
    expect(paymentIdempotencyKey(reordered)).toBe(paymentIdempotencyKey(odd));
  });
});
