import {
  appendTransactionMessageInstruction,
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
import { describe, expect, it } from "vitest";
import { DECODED_WIRE_CACHE_SIZE, decodeSolanaWire } from "./solana-message";

const BLOCKHASH = "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash;

async function wire(lamports: bigint): Promise<string> {
  const feePayer = await generateKeyPairSigner();
  const agent = await generateKeyPairSigner();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 10n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        getTransferSolInstruction({ source: agent, destination: feePayer.address, amount: lamports }),
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

describe("decodeSolanaWire()", () => {
  it("decodes the message and its blockhash, and answers a second read from the cache", async () => {
    const w = await wire(5n);
    const first = decodeSolanaWire(w);
    expect(first?.lifetimeToken).toBe(BLOCKHASH);
    expect(first?.message?.instructions).toHaveLength(1);
    expect(decodeSolanaWire(w)).toBe(first);
  });

  it("keeps what it hands out unchangeable: the message is frozen and the bytes are a copy", async () => {
    const decoded = decodeSolanaWire(await wire(6n))!;
    expect(() => {
      (decoded.message!.staticAccounts as string[])[0] = "attacker";
    }).toThrow(TypeError);
    const bytes = decoded.bytes;
    bytes.fill(0);
    expect(decoded.bytes.some((b) => b !== 0)).toBe(true);
  });

  it("holds at most DECODED_WIRE_CACHE_SIZE decodings, dropping the oldest", async () => {
    const oldest = await wire(7n);
    const kept = decodeSolanaWire(oldest);
    const template = await wire(8n);
    // The cache keys on the text: the same wire with a distinct suffix that base64 decoding skips is a distinct key.
    for (let i = 0; i < DECODED_WIRE_CACHE_SIZE; i++) decodeSolanaWire(`${template}#${i}`);
    expect(decodeSolanaWire(oldest)).not.toBe(kept);
    expect(decodeSolanaWire(oldest)).toEqual(kept);
  });

  it("rejects malformed input: bytes that are no transaction decode to null, every time", () => {
    for (const bad of ["", "not base64 at all!", Buffer.from("short").toString("base64")]) {
      expect(decodeSolanaWire(bad)).toBeNull();
      expect(decodeSolanaWire(bad)).toBeNull();
    }
  });
});
