// Test helpers for a local Solana chain over plain JSON-RPC: a raw call, fresh signers, and a USDC transfer built
// with @solana/kit on a blockhash the caller chooses.
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { generateKeypair } from "../../keys/parse-secret-key";

export interface RpcAnswer {
  status: number;
  retryAfter: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- results of many RPC methods, asserted field by field
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

/** One JSON-RPC call; `timeoutMs` aborts like a client that gives up (the answer then has status 0). */
export async function solanaRpc(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 10_000,
): Promise<RpcAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return { status: 0, retryAfter: null };
  }
  const retryAfter = res.headers.get("retry-after");
  if (res.status !== 200) return { status: res.status, retryAfter };
  return { status: 200, retryAfter, ...((await res.json()) as object) };
}

export async function newSigner(): Promise<KeyPairSigner> {
  const kp = generateKeypair();
  return createKeyPairSignerFromBytes(new Uint8Array([...kp.seed, ...kp.publicKey]));
}

/** A signed USDC transfer from `payer` (who also pays the fee) to `payTo`, on `blockhash`; returns wire and signature. */
export async function signedTransfer(
  usdcMint: string,
  payer: KeyPairSigner,
  payTo: string,
  amount: bigint,
  blockhash: { blockhash: string; lastValidBlockHeight: number },
): Promise<{ wire: string; signature: string }> {
  const mint = address(usdcMint);
  const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({
    owner: address(payTo),
    mint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash.blockhash as Blockhash, lastValidBlockHeight: BigInt(blockhash.lastValidBlockHeight) },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount, decimals: 6 })],
        m,
      ),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}
