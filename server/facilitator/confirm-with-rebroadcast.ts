// Waiting for a Solana settlement to confirm, bounded. A node may drop a transaction it was sent (a full queue, a
// leader that never forwards it); the same bytes sent again can land at most once (the facilitator's Ed25519
// signature is deterministic, so it is the same transaction), so the wait re-sends them every REBROADCAST_EVERY_MS.
// A transaction whose blockhash expired and whose signature is absent can never land: that ends the wait at once.
import "server-only";
import type { Rpc, Signature, SolanaRpcApi } from "@solana/kit";
import { TransactionOnchainFailureError, type FacilitatorSvmSigner } from "@x402/svm";
import { decodeSolanaWire } from "../x402/solana-message";

/** How often a transaction still unconfirmed is sent again: a few slots, as RPC nodes' own retry loops do. */
export const REBROADCAST_EVERY_MS = 2_000;
/** How often the chain is asked about a transaction in flight. */
const POLL_MS = 250;

export type ConfirmOutcome =
  /** Seen at `confirmed` (or `finalized`) commitment, without an error. */
  | { state: "confirmed" }
  /** Seen at `confirmed` commitment, with an error: it cost the fee payer its fee and moved nothing. */
  | { state: "failed"; error: string }
  /** Its blockhash expired and its signature is absent: it can never land. */
  | { state: "expired" }
  /** Neither seen nor expired when the wait ran out. */
  | { state: "pending" };

/** The blockhash (lifetime token) of a base64 wire transaction; null when the bytes are no transaction. */
export function blockhashOfWire(wireBase64: string): string | null {
  return decodeSolanaWire(wireBase64)?.lifetimeToken ?? null;
}

/**
 * Waits up to `waitMs` for `signature` to confirm, re-sending `wire` (the fully signed transaction) every
 * REBROADCAST_EVERY_MS. RPC errors are retried until the wait ends. Never throws.
 */
export async function awaitSolanaConfirmation(rpc: Rpc<SolanaRpcApi>, tx: { signature: string; wire: string; blockhash: string }, waitMs: number): Promise<ConfirmOutcome> {
  const deadline = Date.now() + waitMs;
  let sentAt = Date.now();
  for (;;) {
    const outcome = await checkOnce(rpc, tx.signature, tx.blockhash).catch(() => null);
    if (outcome && outcome.state !== "pending") return outcome;
    if (Date.now() >= deadline) return { state: "pending" };
    if (Date.now() - sentAt >= REBROADCAST_EVERY_MS) {
      sentAt = Date.now();
      await resendWire(rpc, tx.wire).catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}

/**
 * One look at the chain: the signature's status, and only when it has not landed, the blockhash's validity. Expired
 * needs an invalid blockhash read BEFORE a status read that finds nothing, so after an invalid blockhash the status is
 * read again: a transaction that landed between the first two reads is seen then, and never taken for an expired one.
 */
async function checkOnce(rpc: Rpc<SolanaRpcApi>, signature: string, blockhash: string): Promise<ConfirmOutcome> {
  const first = await readStatus(rpc, signature);
  if (first.state !== "absent") return first.outcome;
  const valid = await rpc.isBlockhashValid(blockhash as never, { commitment: "confirmed" }).send();
  if (valid.value) return { state: "pending" };
  const second = await readStatus(rpc, signature);
  return second.state === "absent" ? { state: "expired" } : second.outcome;
}

/** The signature's status at `confirmed`: landed (confirmed or failed), seen but not yet confirmed, or absent. */
async function readStatus(rpc: Rpc<SolanaRpcApi>, signature: string): Promise<{ state: "absent" } | { state: "seen"; outcome: ConfirmOutcome }> {
  const { value } = await rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  if (!status) return { state: "absent" };
  if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") {
    return {
      state: "seen",
      outcome: status.err === null ? { state: "confirmed" } : { state: "failed", error: JSON.stringify(status.err, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) },
    };
  }
  // Processed only: it can still be dropped with its fork, so it is neither landed nor expired yet.
  return { state: "seen", outcome: { state: "pending" } };
}

/** Sends a fully signed wire transaction as settle does: without preflight, so a node forwards it as it is. */
export async function resendWire(rpc: Rpc<SolanaRpcApi>, wire: string): Promise<void> {
  await rpc.sendTransaction(wire as never, { encoding: "base64", skipPreflight: true, preflightCommitment: "confirmed" }).send();
}

/**
 * Wraps `signer` so settle's confirmation wait is bounded by `waitMs` and re-sends the transaction while it waits.
 * Failed and expired are thrown as on-chain failures (the stock scheme's terminal answer: nothing to retry); a wait
 * that runs out is thrown as a plain error, which the stock scheme answers as `settlement_pending`.
 */
export function confirmWithRebroadcast(signer: FacilitatorSvmSigner, rpcByCaip2: Record<string, Rpc<SolanaRpcApi>>, waitMs: number): FacilitatorSvmSigner {
  // The wire settle sent, by signature, until its confirmation wait ends (the two calls follow each other).
  const sent = new Map<string, string>();
  const send = signer.sendTransaction.bind(signer);
  return {
    ...signer,
    sendTransaction: async (transaction, network) => {
      const signature = await send(transaction, network);
      sent.set(signature, transaction);
      return signature;
    },
    confirmTransaction: async (signature, network) => {
      const wire = sent.get(signature);
      sent.delete(signature);
      const rpc = rpcByCaip2[network];
      const blockhash = wire ? blockhashOfWire(wire) : null;
      if (!rpc || !wire || !blockhash) return signer.confirmTransaction(signature, network);
      const outcome = await awaitSolanaConfirmation(rpc, { signature, wire, blockhash }, waitMs);
      if (outcome.state === "confirmed") return;
      if (outcome.state === "failed") throw new TransactionOnchainFailureError(`Transaction failed onchain: ${outcome.error}`);
      if (outcome.state === "expired") throw new TransactionOnchainFailureError("the transaction's blockhash expired before it landed");
      throw new Error(`not confirmed within ${waitMs} ms`);
    },
  };
}
