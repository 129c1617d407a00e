// On-chain checks 4 and 5 of docs/receipts.md for Solana receipts: the transfer reached `pay_to` in the network's USDC
// mint for exactly the amount, and the agent signed and paid. Reads `getTransaction` (jsonParsed, confirmed).
import { decodeBase58 } from "./ed25519";
import { formatUnitsAsUsdc } from "./amounts";
import { jsonRpcCall, type BoundedFetchOptions } from "./json-rpc";

export interface PaymentCheckOutcome {
  payment_on_chain_ok: boolean;
  payer_matches: boolean;
  reasons: { payment_on_chain_ok: string; payer_matches: string };
}

export interface SolanaPaymentCheckInput {
  txSignature: string;
  payTo: string;
  agentPubkey: string;
  usdcMint: string;
  amountUnits: bigint;
  rpcUrl: string;
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  amount: bigint;
}

/** Runs the two payment checks against a Solana JSON-RPC node. Throws VerifierFetchError when the RPC fails. */
export async function checkSolanaPayment(
  input: SolanaPaymentCheckInput,
  opts: BoundedFetchOptions,
): Promise<PaymentCheckOutcome> {
  const fail = (why: string): PaymentCheckOutcome => ({
    payment_on_chain_ok: false,
    payer_matches: false,
    reasons: { payment_on_chain_ok: why, payer_matches: why },
  });
  if (!decodeBase58(input.txSignature, 64)) return fail("tx_signature is not a base58 Solana signature");

  const result = await jsonRpcCall(
    input.rpcUrl,
    "getTransaction",
    [input.txSignature, { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
    opts,
  );
  if (result === null) return fail(`transaction ${short(input.txSignature)} not found at confirmed commitment`);
  const tx = asRecord(result);
  const meta = asRecord(tx?.meta);
  if (!tx || !meta) return fail("RPC returned a transaction without meta");
  if (meta.err !== null && meta.err !== undefined)
    return fail(`transaction ${short(input.txSignature)} failed on chain`);

  const pre = readTokenBalances(meta.preTokenBalances);
  const post = readTokenBalances(meta.postTokenBalances);
  const slot = typeof tx.slot === "number" ? tx.slot : undefined;
  const amountText = `${formatUnitsAsUsdc(input.amountUnits)} USDC`;

  // Check 4: an account of the USDC mint owned by pay_to rose by exactly the amount.
  const received = post.some(
    (b) => b.mint === input.usdcMint && b.owner === input.payTo && delta(pre, b) === input.amountUnits,
  );
  // Check 5: the agent signed, and an account of the USDC mint owned by the agent fell by exactly the amount.
  const signers = readSigners(tx);
  const agentSigned = signers.includes(input.agentPubkey);
  const agentPaid = post.some(
    (b) => b.mint === input.usdcMint && b.owner === input.agentPubkey && -delta(pre, b) === input.amountUnits,
  );

  const where = `tx ${short(input.txSignature)}${slot !== undefined ? ` at slot ${slot}` : ""}`;
  return {
    payment_on_chain_ok: received,
    payer_matches: agentSigned && agentPaid,
    reasons: {
      payment_on_chain_ok: received
        ? `transfer of ${amountText} to ${input.payTo} found in ${where}`
        : `no transfer of exactly ${amountText} (mint ${short(input.usdcMint)}) to ${input.payTo} in ${where}`,
      payer_matches:
        agentSigned && agentPaid
          ? `payer ${input.agentPubkey} signed and paid`
          : !agentSigned
            ? `${input.agentPubkey} did not sign ${where}`
            : `${input.agentPubkey} signed but no USDC account it owns paid ${amountText}`,
    },
  };
}

function delta(pre: TokenBalance[], postBalance: TokenBalance): bigint {
  const before = pre.find((b) => b.accountIndex === postBalance.accountIndex && b.mint === postBalance.mint);
  return postBalance.amount - (before?.amount ?? 0n);
}

function readTokenBalances(value: unknown): TokenBalance[] {
  if (!Array.isArray(value)) return [];
  const out: TokenBalance[] = [];
  for (const item of value) {
    const b = asRecord(item);
    const ui = asRecord(b?.uiTokenAmount);
    if (!b || !ui || typeof b.accountIndex !== "number" || typeof b.mint !== "string") continue;
    if (typeof ui.amount !== "string" || !/^\d+$/.test(ui.amount)) continue;
    out.push({
      accountIndex: b.accountIndex,
      mint: b.mint,
      ...(typeof b.owner === "string" ? { owner: b.owner } : {}),
      amount: BigInt(ui.amount),
    });
  }
  return out;
}

function readSigners(tx: Record<string, unknown>): string[] {
  const message = asRecord(asRecord(tx.transaction)?.message);
  const keys = message?.accountKeys;
  if (!Array.isArray(keys)) return [];
  const signers: string[] = [];
  for (const key of keys) {
    const k = asRecord(key);
    if (k && k.signer === true && typeof k.pubkey === "string") signers.push(k.pubkey);
  }
  return signers;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function short(text: string): string {
  return text.length > 12 ? `${text.slice(0, 4)}…${text.slice(-4)}` : text;
}
