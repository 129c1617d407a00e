// Sends a transaction the facilitator itself pays for (e.g. creating the deposit token account) and polls for
// confirmation over plain JSON-RPC (the local chain has no websocket subscriptions).
import "server-only";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
} from "@solana/kit";
import type { Clock } from "../clock";

/** How long the facilitator waits for its own setup transactions to confirm. */
const SETUP_CONFIRM_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 250;

/** Signs with `payer`, sends, and waits until the signature is confirmed (by `clock`); throws on failure or timeout. */
export async function sendAndConfirm(
  rpc: Rpc<SolanaRpcApi>,
  payer: KeyPairSigner,
  instructions: Instruction[],
  clock: Clock,
): Promise<string> {
  const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  const signature = getSignatureFromTransaction(signed);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64" }).send();
  const deadline = clock.monotonic() + SETUP_CONFIRM_TIMEOUT_MS;
  while (clock.monotonic() < deadline) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status?.err) throw new Error(`transaction ${signature} failed on chain`);
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized"))
      return signature;
    await clock.sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`transaction ${signature} not confirmed within ${SETUP_CONFIRM_TIMEOUT_MS} ms`);
}
