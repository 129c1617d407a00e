// Receipt verification: five checks over a receipt, its prompt and its response, with the Ed25519 backend passed in.
// Pure and browser-safe: the explorer runs this same module in the browser (noble); the hosted verifier runs it on the
// server (node:crypto). Callers use the bound methods of createVerifier() (create-verifier.ts).
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";
import { matchPromptHash, promptHashCandidates, responseHash, sha256Hex, type Sha256Hex } from "./hashes";
import { usdcNumberToUnits } from "./amounts";
import { checkEd25519, decodeBase58, type Ed25519Backend } from "./ed25519";
import { fetchJsonBounded, VerifierFetchError, type FetchLike, type BoundedFetchOptions } from "./json-rpc";
import {
  DEFAULT_EVM_RPC_BY_NETWORK,
  DEFAULT_SOLANA_RPC_BY_CLUSTER,
  USDC_CONTRACT_BY_EVM_NETWORK,
  USDC_MINT_BY_SOLANA_CLUSTER,
  isKnownEvmNetwork,
  solanaClusterOf,
} from "./networks";
import { checkSolanaPayment, type PaymentCheckOutcome } from "./check-solana-payment";
import { checkEvmPayment } from "./check-evm-payment";

export const CHECK_NAMES = [
  "prompt_hash_ok",
  "response_hash_ok",
  "service_signature_ok",
  "payment_on_chain_ok",
  "payer_matches",
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];
export type Checks = Record<CheckName, boolean>;

export interface VerifyResult {
  ok: boolean;
  checks: Checks;
  /** One plain sentence per check, for people (the explorer shows them). */
  reasons: Record<CheckName, string>;
  /** The operator key the signature was checked against (pinned or fetched). */
  operatorKey: string;
}

export interface SignatureOnlyResult {
  ok: boolean;
  checks: { service_signature_ok: boolean };
  reasons: { service_signature_ok: string };
  operatorKey: string;
}

export interface VerifyReceiptInput {
  receipt: unknown;
  /** A messages array, a request body with `messages` or `prompt`, or a plain string. */
  prompt: unknown;
  /** A chat-completion body, `{ result }`, a plain string, or an array of stream chunks. */
  response: unknown;
  /** Service origin; the operator key is fetched from `{endpoint}/api/v1/operator-key` unless pinned. */
  endpoint?: string;
  /** Pinned base58 operator key: skips the fetch. */
  operatorKey?: string;
  /** Chain RPC override; default chosen by `payment.network`. */
  rpc?: string;
  /** Fetch implementation (defaults to the global fetch). */
  fetch?: FetchLike;
  /** Offline: no chain calls; payment checks are false for receipts with a `payment` block. */
  offline?: boolean;
  /** Per-attempt timeout for each network call, ms. */
  attemptTimeoutMs?: number;
}

export type SignatureOnlyInput = Pick<VerifyReceiptInput, "receipt" | "endpoint" | "operatorKey" | "fetch" | "attemptTimeoutMs">;

/** Thrown for misuse: a receipt that is not an object, no way to get the operator key, a malformed pinned key. */
export class VerifyInputError extends TypeError {
  override name = "VerifyInputError";
}

/**
 * Runs all five checks, the signature one with `ed25519` and the hashes with `hash` (noble's SHA-256 by default). `ok` is true only if every check passes. Throws
 * VerifierFetchError when the operator key or the chain could not be reached (an outage is not a verdict),
 * VerifyInputError on misuse.
 */
export async function verifyReceiptWith(ed25519: Ed25519Backend, input: VerifyReceiptInput, hash: Sha256Hex = sha256Hex): Promise<VerifyResult> {
  const receipt = assertReceiptObject(input.receipt);
  const operatorKey = await resolveOperatorKey(input);
  const fetchOpts = fetchOptions(input);

  const expectedPrompt = receipt.prompt_hash;
  const promptMatch = matchPromptHash(input.prompt, expectedPrompt, hash);
  const computedResponse = responseHash(input.response, hash);
  const responseOk = computedResponse !== null && computedResponse === receipt.response_hash;
  const signatureOk = checkSignature(ed25519, receipt, operatorKey);
  const payment = await checkPayment(receipt, input, fetchOpts);

  const checks: Checks = {
    prompt_hash_ok: promptMatch !== undefined,
    response_hash_ok: responseOk,
    service_signature_ok: signatureOk,
    payment_on_chain_ok: payment.payment_on_chain_ok,
    payer_matches: payment.payer_matches,
  };
  return {
    ok: CHECK_NAMES.every((name) => checks[name]),
    checks,
    reasons: {
      prompt_hash_ok: promptMatch
        ? `prompt hash matches (${promptMatch.form} form)`
        : promptHashCandidates(input.prompt).length === 0
          ? "no prompt given in a recognised form (messages, request body, or text)"
          : "prompt hash differs from the receipt's prompt_hash",
      response_hash_ok: responseOk
        ? "response hash matches"
        : computedResponse === null
          ? "no response text found (chat completion, {result}, text, or stream chunks)"
          : "response hash differs from the receipt's response_hash",
      service_signature_ok: signatureReason(signatureOk, operatorKey),
      ...payment.reasons,
    },
    operatorKey,
  };
}

/** Checks only the operator signature (with `ed25519`): proves the operator minted the receipt, not that any text matches it. */
export async function verifySignatureOnlyWith(ed25519: Ed25519Backend, input: SignatureOnlyInput): Promise<SignatureOnlyResult> {
  const receipt = assertReceiptObject(input.receipt);
  const operatorKey = await resolveOperatorKey(input);
  const ok = checkSignature(ed25519, receipt, operatorKey);
  return { ok, checks: { service_signature_ok: ok }, reasons: { service_signature_ok: signatureReason(ok, operatorKey) }, operatorKey };
}

/** The exact bytes a receipt's `service_signature` covers: canonical JSON of every other field, whatever they are. */
export function receiptSigningBytes(receipt: Record<string, unknown>): Uint8Array {
  const { service_signature: _omitted, ...unsigned } = receipt;
  return utf8ToBytes(canonicalJson(unsigned));
}

function checkSignature(ed25519: Ed25519Backend, receipt: Record<string, unknown>, operatorKey: string): boolean {
  let message: Uint8Array;
  try {
    message = receiptSigningBytes(receipt);
  } catch {
    return false;
  }
  return checkEd25519(ed25519, message, receipt.service_signature, operatorKey);
}

function signatureReason(ok: boolean, operatorKey: string): string {
  const key = `${operatorKey.slice(0, 4)}…`;
  return ok ? `signature made by operator key ${key}` : `signature is not valid for operator key ${key}`;
}

async function checkPayment(
  receipt: Record<string, unknown>,
  input: VerifyReceiptInput,
  fetchOpts: BoundedFetchOptions,
): Promise<PaymentCheckOutcome> {
  const fail = (why: string): PaymentCheckOutcome => ({
    payment_on_chain_ok: false,
    payer_matches: false,
    reasons: { payment_on_chain_ok: why, payer_matches: why },
  });
  if (receipt.payment === undefined || receipt.payment === null) {
    const why = "prepaid receipt: no on-chain payment to check";
    return { payment_on_chain_ok: true, payer_matches: true, reasons: { payment_on_chain_ok: why, payer_matches: why } };
  }
  if (input.offline) return fail("not checked: offline mode");
  const payment = receipt.payment;
  if (typeof payment !== "object" || Array.isArray(payment)) return fail("payment block is malformed");
  const p = payment as Record<string, unknown>;
  const { tx_signature: txSignature, pay_to: payTo, network } = p;
  const amountUnits = usdcNumberToUnits(p.amount_usdc);
  const agent = receipt.agent_pubkey;
  if (typeof txSignature !== "string" || typeof payTo !== "string" || typeof network !== "string" || typeof agent !== "string") {
    return fail("payment block lacks tx_signature, pay_to or network, or the receipt lacks agent_pubkey");
  }
  if (amountUnits === null || amountUnits === 0n) return fail("payment.amount_usdc is not a positive USDC amount");

  if (isKnownEvmNetwork(network)) {
    return checkEvmPayment(
      {
        txHash: txSignature,
        payTo,
        agentAddress: agent,
        usdcContract: USDC_CONTRACT_BY_EVM_NETWORK[network]!,
        amountUnits,
        rpcUrl: input.rpc ?? DEFAULT_EVM_RPC_BY_NETWORK[network]!,
      },
      fetchOpts,
    );
  }
  const cluster = solanaClusterOf(network);
  if (cluster === null) return fail(`unsupported payment network ${network}`);
  return checkSolanaPayment(
    {
      txSignature,
      payTo,
      agentPubkey: agent,
      usdcMint: USDC_MINT_BY_SOLANA_CLUSTER[cluster],
      amountUnits,
      rpcUrl: input.rpc ?? DEFAULT_SOLANA_RPC_BY_CLUSTER[cluster],
    },
    fetchOpts,
  );
}

async function resolveOperatorKey(input: SignatureOnlyInput): Promise<string> {
  if (input.operatorKey !== undefined) {
    if (!decodeBase58(input.operatorKey, 32)) throw new VerifyInputError("operatorKey is not a base58 32-byte public key");
    return input.operatorKey;
  }
  if (!input.endpoint) throw new VerifyInputError("either operatorKey or endpoint is required");
  const url = `${input.endpoint.replace(/\/+$/, "")}/api/v1/operator-key`;
  const body = await fetchJsonBounded(url, { method: "GET", headers: { accept: "application/json" } }, fetchOptions(input), "operator_key_unavailable");
  const pubkey = typeof body === "object" && body !== null ? (body as { pubkey?: unknown }).pubkey : undefined;
  if (!decodeBase58(pubkey, 32)) {
    throw new VerifierFetchError("operator_key_unavailable", `${url} did not return a base58 Ed25519 public key`);
  }
  return pubkey as string;
}

function fetchOptions(input: SignatureOnlyInput): BoundedFetchOptions {
  const fetchImpl: FetchLike = input.fetch ?? ((url, init) => fetch(url, init));
  return { fetch: fetchImpl, ...(input.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: input.attemptTimeoutMs } : {}) };
}

function assertReceiptObject(receipt: unknown): Record<string, unknown> {
  if (typeof receipt !== "object" || receipt === null || Array.isArray(receipt)) {
    throw new VerifyInputError("receipt must be a JSON object");
  }
  return receipt as Record<string, unknown>;
}
