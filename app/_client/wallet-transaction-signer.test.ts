import { ed25519 } from "@noble/curves/ed25519.js";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  createTransactionMessage,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  walletTransactionSigner,
  WalletDidNotSignError,
  type WalletSignTransaction,
} from "./wallet-transaction-signer";

const FEE_PAYER = Keypair.generate().publicKey.toBase58();
const BLOCKHASH = Keypair.generate().publicKey.toBase58();

/** A transfer the wallet must sign, with another account as fee payer (as the x402 client builds it), signed through kit. */
async function signThroughKit(wallet: Keypair, signTransaction: WalletSignTransaction) {
  const signer = walletTransactionSigner(wallet.publicKey.toBase58(), signTransaction);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(FEE_PAYER), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(BLOCKHASH), lastValidBlockHeight: 100n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        getTransferSolInstruction({ source: signer, destination: address(FEE_PAYER), amount: 1n }),
        m,
      ),
  );
  return partiallySignTransactionMessageWithSigners(message);
}

const signWith =
  (wallet: Keypair): WalletSignTransaction =>
  async (tx) => {
    tx.sign([wallet]);
    return tx;
  };

describe("walletTransactionSigner()", () => {
  it("puts the wallet's valid signature on the transaction kit built, and leaves the fee payer's slot empty", async () => {
    const wallet = Keypair.generate();
    const tx = await signThroughKit(wallet, signWith(wallet));
    const signature = tx.signatures[address(wallet.publicKey.toBase58())];
    expect(signature).toBeTruthy();
    expect(ed25519.verify(signature!, new Uint8Array(tx.messageBytes), wallet.publicKey.toBytes())).toBe(true);
    expect(tx.signatures[address(FEE_PAYER)]).toBeNull();
  });

  it("keeps the transaction a wallet changed and signed (Phantom adds instructions), not the original", async () => {
    const wallet = Keypair.generate();
    const addInstructionAndSign: WalletSignTransaction = async (tx) => {
      const message = TransactionMessage.decompile(tx.message);
      message.instructions.push(
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: new PublicKey(FEE_PAYER), lamports: 2 }),
      );
      const changed = new VersionedTransaction(message.compileToV0Message());
      changed.sign([wallet]);
      return changed;
    };
    const tx = await signThroughKit(wallet, addInstructionAndSign);
    const signature = tx.signatures[address(wallet.publicKey.toBase58())]!;
    expect(ed25519.verify(signature, new Uint8Array(tx.messageBytes), wallet.publicKey.toBytes())).toBe(true);
    const original = await signThroughKit(wallet, signWith(wallet));
    expect(Buffer.from(tx.messageBytes).equals(Buffer.from(original.messageBytes))).toBe(false);
  });

  it("rejects a transaction the wallet returned without its signature", async () => {
    const wallet = Keypair.generate();
    await expect(signThroughKit(wallet, async (tx) => tx)).rejects.toBeInstanceOf(WalletDidNotSignError);
  });

  it("passes on the wallet's refusal as it was thrown", async () => {
    const wallet = Keypair.generate();
    const refusal = Object.assign(new Error("User rejected the request."), { name: "WalletSignTransactionError" });
    await expect(
      signThroughKit(wallet, async () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
  });

  it("rejects malformed input: an address that is not base58", () => {
    expect(() => walletTransactionSigner("not-an-address", signWith(Keypair.generate()))).toThrow();
  });
});
