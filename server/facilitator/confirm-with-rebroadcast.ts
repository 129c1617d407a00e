// Waiting for a Solana settlement to confirm, bounded. A node may drop a transaction it was sent (a full queue, a
// leader that never forwards it); the same bytes sent again can land at most once (the facilitator's Ed25519
// signature is deterministic, so it is the same transaction), so the wait re-sends them every REBROADCAST_EVERY_MS.
// A transaction whose blockhash expired and whose signature is absent can never land: that ends the wait at once.
// Every wait in the process on one RPC is asked about together: a wait's first look goes out in the same turn of the
// event loop, and its later polls wait up to COALESCE_MS for others', then all go out as one getSignatureStatuses (up
// to 256 signatures) plus one isBlockhashValid per distinct blockhash among those not landed. Hundreds of settlements
// in flight then cost a few requests per poll, not a few each, which is what a rate-limited RPC allows.
import "server-only";
import type { Rpc, Signature, SolanaRpcApi } from "@solana/kit";
import { TransactionOnchainFailureError, type FacilitatorSvmSigner } from "@x402/svm";
import { decodeSolanaWire } from "./solana-message";
import type { Clock } from "../clock";

/** How often a transaction still unconfirmed is sent again: a few slots, as RPC nodes' own retry loops do. */
const REBROADCAST_EVERY_MS = 2_000;
/** How often the chain is asked about a transaction in flight. */
export const POLL_MS = 250;
/** How long a poll waits for other waits' polls to go out with it. */
const COALESCE_MS = 25;
/** The most signatures one getSignatureStatuses may name (the RPC's own limit). */
export const MAX_SIGNATURES_PER_CALL = 256;

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
 * REBROADCAST_EVERY_MS, both measured by `clock`. RPC errors are retried until the wait ends. Never throws.
 */
export async function awaitSolanaConfirmation(
  rpc: Rpc<SolanaRpcApi>,
  tx: { signature: string; wire: string; blockhash: string },
  waitMs: number,
  clock: Clock,
): Promise<ConfirmOutcome> {
  const deadline = clock.monotonic() + waitMs;
  const batcher = batcherOf(rpc);
  let sentAt = clock.monotonic();
  for (let poll = 0; ; poll++) {
    const outcome = await batcher.check(tx.signature, tx.blockhash, poll === 0 ? "now" : "gathered");
    if (outcome && outcome.state !== "pending") return outcome;
    if (clock.monotonic() >= deadline) return { state: "pending" };
    if (clock.monotonic() - sentAt >= REBROADCAST_EVERY_MS) {
      sentAt = clock.monotonic();
      await resendWire(rpc, tx.wire).catch(() => undefined);
    }
    await clock.sleep(Math.min(POLL_MS, Math.max(0, deadline - clock.monotonic())));
  }
}

interface Check {
  signature: string;
  blockhash: string;
  /** null: the RPC failed this time; the wait goes on. */
  resolve(outcome: ConfirmOutcome | null): void;
}

/**
 * Each RPC client's status batcher, keyed weakly by the client: a runtime's facilitator owns its clients, so a batcher
 * lives and dies with the runtime that made its client (bound: one per live client). It only gathers concurrent
 * waits into one status request; what each wait concludes is its own.
 */
const batchers = new WeakMap<Rpc<SolanaRpcApi>, StatusBatcher>();

function batcherOf(rpc: Rpc<SolanaRpcApi>): StatusBatcher {
  let batcher = batchers.get(rpc);
  if (!batcher) batchers.set(rpc, (batcher = new StatusBatcher(rpc)));
  return batcher;
}

/**
 * Gathers checks and asks the RPC about them together: a check `now` goes out at the end of this turn of the event
 * loop, a `gathered` one within COALESCE_MS, each with every other check queued by then.
 */
class StatusBatcher {
  private queue: Check[] = [];
  private immediate: NodeJS.Immediate | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly rpc: Rpc<SolanaRpcApi>) {}

  /** The signature's outcome at the next batch; null when the RPC failed. Never rejects. */
  check(signature: string, blockhash: string, when: "now" | "gathered"): Promise<ConfirmOutcome | null> {
    return new Promise((resolve) => {
      this.queue.push({ signature, blockhash, resolve });
      if (when === "now") this.immediate ??= setImmediate(() => this.flush());
      else this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
    });
  }

  private flush(): void {
    if (this.immediate) clearImmediate(this.immediate);
    if (this.timer) clearTimeout(this.timer);
    this.immediate = null;
    this.timer = null;
    const due = this.queue;
    this.queue = [];
    const bySignature = new Map<string, Check[]>();
    for (const c of due) bySignature.set(c.signature, [...(bySignature.get(c.signature) ?? []), c]);
    const signatures = [...bySignature.keys()];
    for (let i = 0; i < signatures.length; i += MAX_SIGNATURES_PER_CALL) {
      const part = signatures
        .slice(i, i + MAX_SIGNATURES_PER_CALL)
        .map((signature) => ({ signature, blockhash: bySignature.get(signature)![0]!.blockhash }));
      void checkMany(this.rpc, part).then(
        (outcomes) =>
          part.forEach(({ signature }, j) => bySignature.get(signature)!.forEach((c) => c.resolve(outcomes[j]!))),
        () => part.forEach(({ signature }) => bySignature.get(signature)!.forEach((c) => c.resolve(null))),
      );
    }
  }
}

/**
 * One look at the chain for each transaction: the statuses, and only for those not landed, their blockhashes'
 * validity. Expired needs an invalid blockhash read BEFORE a status read that finds nothing, so after an invalid
 * blockhash the statuses are read again: a transaction that landed between the first two reads is seen then, and is
 * never taken for an expired one. A blockhash the RPC failed to answer leaves its transactions as they were (null).
 */
async function checkMany(
  rpc: Rpc<SolanaRpcApi>,
  txs: readonly { signature: string; blockhash: string }[],
): Promise<(ConfirmOutcome | null)[]> {
  const first = await readStatuses(
    rpc,
    txs.map((t) => t.signature),
  );
  const outcomes: (ConfirmOutcome | null)[] = first.map((s) => (s === "absent" ? null : s));
  const absent = txs.map((t, i) => ({ ...t, i })).filter(({ i }) => first[i] === "absent");
  if (absent.length === 0) return outcomes;
  const blockhashes = [...new Set(absent.map((t) => t.blockhash))];
  const validity = new Map(
    await Promise.all(
      blockhashes.map(
        async (b) =>
          [
            b,
            await rpc
              .isBlockhashValid(b as never, { commitment: "confirmed" })
              .send()
              .then(
                (r) => r.value,
                () => null,
              ),
          ] as const,
      ),
    ),
  );
  const expiredCandidates: typeof absent = [];
  for (const t of absent) {
    const valid = validity.get(t.blockhash);
    if (valid === true) outcomes[t.i] = { state: "pending" };
    else if (valid === false) expiredCandidates.push(t);
  }
  if (expiredCandidates.length === 0) return outcomes;
  const second = await readStatuses(
    rpc,
    expiredCandidates.map((t) => t.signature),
  );
  expiredCandidates.forEach((t, j) => {
    const s = second[j]!;
    outcomes[t.i] = s === "absent" ? { state: "expired" } : s;
  });
  return outcomes;
}

/** Each signature's status at `confirmed`: its outcome when landed or only processed (pending), else absent. */
async function readStatuses(
  rpc: Rpc<SolanaRpcApi>,
  signatures: readonly string[],
): Promise<(ConfirmOutcome | "absent")[]> {
  const { value } = await rpc
    .getSignatureStatuses(signatures as Signature[], { searchTransactionHistory: true })
    .send();
  return signatures.map((_, i) => {
    const status = value[i];
    if (!status) return "absent";
    if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") {
      return status.err === null
        ? { state: "confirmed" }
        : {
            state: "failed",
            error: JSON.stringify(status.err, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
          };
    }
    // Processed only: it can still be dropped with its fork, so it is neither landed nor expired yet.
    return { state: "pending" };
  });
}

/** Sends a fully signed wire transaction as settle does: without preflight, so a node forwards it as it is. */
export async function resendWire(rpc: Rpc<SolanaRpcApi>, wire: string): Promise<void> {
  await rpc
    .sendTransaction(wire as never, { encoding: "base64", skipPreflight: true, preflightCommitment: "confirmed" })
    .send();
}

/**
 * Wraps `signer` so settle's confirmation wait is bounded by `waitMs` (by `clock`) and re-sends the transaction while it
 * waits.
 * Failed and expired are thrown as on-chain failures (the stock scheme's terminal answer: nothing to retry); a wait
 * that runs out is thrown as a plain error, which the stock scheme answers as `settlement_pending`.
 */
export function confirmWithRebroadcast(
  signer: FacilitatorSvmSigner,
  rpcByCaip2: Record<string, Rpc<SolanaRpcApi>>,
  waitMs: number,
  clock: Clock,
): FacilitatorSvmSigner {
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
      const outcome = await awaitSolanaConfirmation(rpc, { signature, wire, blockhash }, waitMs, clock);
      if (outcome.state === "confirmed") return;
      if (outcome.state === "failed")
        throw new TransactionOnchainFailureError(`Transaction failed onchain: ${outcome.error}`);
      if (outcome.state === "expired")
        throw new TransactionOnchainFailureError("the transaction's blockhash expired before it landed");
      throw new Error(`not confirmed within ${waitMs} ms`);
    },
  };
}
