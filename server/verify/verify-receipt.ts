// Receipt verification: five checks over a receipt, its prompt and its response, with the Ed25519 backend passed in.
// Pure and browser-safe: the explorer runs this same module in the browser (noble); the hosted verifier runs it on the
// server (node:crypto). Callers use the bound methods of createVerifier() (create-verifier.ts).
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";
import {
  matchPromptHash,
  promptHashCandidates,
  RESPONSE_FORMS,
  responseHash,
  sha256Hex,
  type Sha256Hex,
} from "./hashes";
import { usdcNumberToUnits } from "./amounts";
import { decodeBase58, type Ed25519Backend } from "./ed25519";
import {
  checkOperatorSignature,
  formatUnixMs,
  parseOperatorKeys,
  type OperatorKeys,
  type OperatorSignatureCheck,
} from "./operator-keys";
import { fetchJsonBounded, VerifierFetchError, type FetchLike, type BoundedFetchOptions } from "./json-rpc";
import { SHIPPED_NETWORKS, type NetworkRegistry } from "./network-registry";
import type { PaymentCheckOutcome } from "./check-solana-payment";
import { checkPaymentByFamily } from "./check-payment-by-family";

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
  /**
   * The operator key that made the signature: the current key, or a retired one (valid only before its retirement);
   * the current key (pinned or fetched) when none did.
   */
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
  /**
   * Service origin; the operator keys (the current one and the retired ones) are fetched from
   * `{endpoint}/api/v1/operator-key` unless pinned.
   */
  endpoint?: string;
  /** Pinned base58 operator key: skips the fetch, and only this key is accepted. */
  operatorKey?: string;
  /**
   * Pinned operator keys, as `GET /api/v1/operator-key` answers them: the current key, and the retired ones, each
   * accepted for receipts timestamped before its retirement. Skips the fetch; not with `operatorKey`.
   */
  operatorKeys?: OperatorKeys;
  /** Chain RPC override; default chosen by `payment.network`. */
  rpc?: string;
  /** Fetch implementation (defaults to the global fetch). */
  fetch?: FetchLike;
  /** Offline: no chain calls; payment checks are false for receipts with a `payment` block. */
  offline?: boolean;
  /** Per-attempt timeout for each network call, ms. */
  attemptTimeoutMs?: number;
  /** The networks a receipt may have been paid on (default: this release's, SHIPPED_NETWORKS). */
  networks?: NetworkRegistry;
}

export type SignatureOnlyInput = Pick<
  VerifyReceiptInput,
  "receipt" | "endpoint" | "operatorKey" | "operatorKeys" | "fetch" | "attemptTimeoutMs"
>;

/** Thrown for misuse: a receipt that is not an object, no way to get the operator key, a malformed pinned key. */
export class VerifyInputError extends TypeError {
  override name = "VerifyInputError";
}

/**
 * Runs all five checks, the signature one with `ed25519` and the hashes with `hash` (noble's SHA-256 by default). `ok` is true only if every check passes. Throws
 * VerifierFetchError when the operator key or the chain could not be reached (an outage is not a verdict),
 * VerifyInputError on misuse.
 */
export async function verifyReceiptWith(
  ed25519: Ed25519Backend,
  input: VerifyReceiptInput,
  hash: Sha256Hex = sha256Hex,
): Promise<VerifyResult> {
  const receipt = assertReceiptObject(input.receipt);
  const operatorKeys = await resolveOperatorKeys(input);
  const fetchOpts = fetchOptions(input);

  const expectedPrompt = receipt.prompt_hash;
  const promptMatch = matchPromptHash(input.prompt, expectedPrompt, hash);
  const computedResponse = responseHash(input.response, hash);
  const responseOk = computedResponse !== null && computedResponse === receipt.response_hash;
  const signature = checkSignature(ed25519, receipt, operatorKeys);
  const payment = await checkPayment(receipt, input, fetchOpts);

  const checks: Checks = {
    prompt_hash_ok: promptMatch !== undefined,
    response_hash_ok: responseOk,
    service_signature_ok: signature.ok,
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
          ? `no response found in a recognised form (${RESPONSE_FORMS})`
          : "response hash differs from the receipt's response_hash",
      service_signature_ok: signatureReason(signature, operatorKeys, receipt.timestamp),
      ...payment.reasons,
    },
    operatorKey: signature.pubkey,
  };
}

/** Checks only the operator signature (with `ed25519`): proves the operator minted the receipt, not that any text matches it. */
export async function verifySignatureOnlyWith(
  ed25519: Ed25519Backend,
  input: SignatureOnlyInput,
): Promise<SignatureOnlyResult> {
  const receipt = assertReceiptObject(input.receipt);
  const operatorKeys = await resolveOperatorKeys(input);
  const signature = checkSignature(ed25519, receipt, operatorKeys);
  return {
    ok: signature.ok,
    checks: { service_signature_ok: signature.ok },
    reasons: { service_signature_ok: signatureReason(signature, operatorKeys, receipt.timestamp) },
    operatorKey: signature.pubkey,
  };
}

/** The exact bytes a receipt's `service_signature` covers: canonical JSON of every other field, whatever they are. */
export function receiptSigningBytes(receipt: Record<string, unknown>): Uint8Array {
  const { service_signature: _omitted, ...unsigned } = receipt;
  return utf8ToBytes(canonicalJson(unsigned));
}

function checkSignature(
  ed25519: Ed25519Backend,
  receipt: Record<string, unknown>,
  keys: OperatorKeys,
): OperatorSignatureCheck {
  let message: Uint8Array;
  try {
    message = receiptSigningBytes(receipt);
  } catch {
    return { ok: false, reason: "signature_invalid", pubkey: keys.pubkey, retiredAt: null };
  }
  return checkOperatorSignature(ed25519, message, receipt.service_signature, keys, receipt.timestamp);
}

/** The sentence for the signature check: which key signed, and for a retired key, how the receipt's time compares. */
function signatureReason(check: OperatorSignatureCheck, keys: OperatorKeys, timestamp: unknown): string {
  const key = `${check.pubkey.slice(0, 4)}…`;
  const retired = check.retiredAt === null ? "" : formatUnixMs(check.retiredAt);
  if (check.ok)
    return check.retiredAt === null
      ? `signature made by operator key ${key}`
      : `signature made by retired operator key ${key} before its retirement at ${retired}`;
  switch (check.reason) {
    case "signature_invalid":
      return keys.retired.length === 0
        ? `signature is not valid for operator key ${key}`
        : `signature is not valid for operator key ${key} nor for any of its retired keys`;
    case "signed_after_retirement":
      return `signature made by operator key ${key}, retired at ${retired}: the receipt's timestamp ${formatUnixMs(timestamp as number)} is not before its retirement`;
    case "timestamp_missing":
      return `signature made by operator key ${key}, retired at ${retired}: the receipt has no timestamp to show it was signed before then`;
  }
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
    return {
      payment_on_chain_ok: true,
      payer_matches: true,
      reasons: { payment_on_chain_ok: why, payer_matches: why },
    };
  }
  if (input.offline) return fail("not checked: offline mode");
  const payment = receipt.payment;
  if (typeof payment !== "object" || Array.isArray(payment)) return fail("payment block is malformed");
  const p = payment as Record<string, unknown>;
  const { tx_signature: txSignature, pay_to: payTo, network } = p;
  const amountUnits = usdcNumberToUnits(p.amount_usdc);
  const agent = receipt.agent_pubkey;
  if (
    typeof txSignature !== "string" ||
    typeof payTo !== "string" ||
    typeof network !== "string" ||
    typeof agent !== "string"
  ) {
    return fail("payment block lacks tx_signature, pay_to or network, or the receipt lacks agent_pubkey");
  }
  if (amountUnits === null || amountUnits === 0n) return fail("payment.amount_usdc is not a positive USDC amount");

  // EVM ids match exactly; Solana ones also by alias (`solana:devnet`) and by the whole genesis hash.
  const row = (input.networks ?? SHIPPED_NETWORKS).ofReceiptNetwork(network);
  if (row === null) return fail(`unsupported payment network ${network}`);
  const rpcUrl = input.rpc ?? row.publicRpcUrl;
  return checkPaymentByFamily(row, { transaction: txSignature, payTo, agent, amountUnits, rpcUrl }, fetchOpts);
}

/** The keys a signature is checked against: the pinned key alone, the pinned set, or the set the endpoint publishes. */
async function resolveOperatorKeys(input: SignatureOnlyInput): Promise<OperatorKeys> {
  if (input.operatorKey !== undefined && input.operatorKeys !== undefined)
    throw new VerifyInputError("give operatorKey or operatorKeys, not both");
  if (input.operatorKey !== undefined) {
    if (!decodeBase58(input.operatorKey, 32))
      throw new VerifyInputError("operatorKey is not a base58 32-byte public key");
    return { pubkey: input.operatorKey, retired: [] };
  }
  if (input.operatorKeys !== undefined) {
    const keys = parseOperatorKeys(input.operatorKeys);
    if (!keys)
      throw new VerifyInputError(
        "operatorKeys is not { pubkey, retired: [{ pubkey, retired_at }] } with distinct base58 32-byte keys and Unix ms times",
      );
    return keys;
  }
  if (!input.endpoint) throw new VerifyInputError("either operatorKey or endpoint is required");
  const url = `${input.endpoint.replace(/\/+$/, "")}/api/v1/operator-key`;
  const body = await fetchJsonBounded(
    url,
    { method: "GET", headers: { accept: "application/json" } },
    fetchOptions(input),
    "operator_key_unavailable",
  );
  const keys = parseOperatorKeys(body);
  if (!keys) {
    throw new VerifierFetchError(
      "operator_key_unavailable",
      `${url} did not return a base58 Ed25519 public key with well-formed retired keys`,
    );
  }
  return keys;
}

function fetchOptions(input: SignatureOnlyInput): BoundedFetchOptions {
  const fetchImpl: FetchLike = input.fetch ?? ((url, init) => fetch(url, init));
  return {
    fetch: fetchImpl,
    ...(input.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: input.attemptTimeoutMs } : {}),
  };
}

function assertReceiptObject(receipt: unknown): Record<string, unknown> {
  if (typeof receipt !== "object" || receipt === null || Array.isArray(receipt)) {
    throw new VerifyInputError("receipt must be a JSON object");
  }
  return receipt as Record<string, unknown>;
}
