// What the receipt explorer runs in the browser: read what a person pasted (receipt JSON, the base64 header, an id
// or a permalink), verify with everything given (signature only when no texts), and check a hosted verdict's
// signature. Pure and browser-safe; the Ed25519 backend is passed in (createVerifier binds it).
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json";
import { checkEd25519, type Ed25519Backend } from "./ed25519";
import type { FetchLike } from "./json-rpc";
import type { OperatorKeys } from "./operator-keys";
import { parseReceiptText } from "./parse-receipt";
import { verifyReceiptWith, verifySignatureOnlyWith, type CheckName } from "./verify-receipt";

export type ExplorerInput =
  | { kind: "receipt"; receipt: Record<string, unknown> }
  | { kind: "id"; id: string }
  | { kind: "invalid"; reason: string };

const ID =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[1-9A-HJ-NP-Za-km-z]{64,90}|0x[0-9a-fA-F]{64})$/i;

/** Classifies the receipt box: a receipt (JSON or base64), or an id / tx signature / permalink to fetch. */
export function readExplorerInput(text: string): ExplorerInput {
  const trimmed = text.trim();
  if (!trimmed)
    return { kind: "invalid", reason: "paste a receipt, an X-Service-Receipt value, a receipt id or a permalink" };
  const permalink = /\/(?:r|api\/v1\/receipts)\/([^/?#\s]+)\/?(?:[?#].*)?$/.exec(trimmed);
  if (permalink?.[1] && ID.test(decodeURIComponent(permalink[1])))
    return { kind: "id", id: decodeURIComponent(permalink[1]) };
  if (ID.test(trimmed)) return { kind: "id", id: trimmed };
  const parsed = parseReceiptText(trimmed);
  return parsed.ok
    ? { kind: "receipt", receipt: parsed.receipt }
    : { kind: "invalid", reason: "this is neither receipt JSON, a base64 receipt, nor a receipt id" };
}

/** Reads an optional prompt or response box: JSON when it parses, else the text; undefined when empty. */
export function readTextOrJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export interface ExplorerVerdict {
  mode: "full" | "signature-only";
  ok: boolean;
  checks: Partial<Record<CheckName, boolean>>;
  reasons: Partial<Record<CheckName, string>>;
  operatorKey: string;
}

export interface ExplorerVerifyInput {
  receipt: Record<string, unknown>;
  /** Undefined (an empty box) means signature-only. */
  prompt: unknown;
  response: unknown;
  /** The operator key to pin alone; or `operatorKeys`. */
  operatorKey?: string;
  /** The operator's keys as `GET /api/v1/operator-key` publishes them: a retired key counts before its retirement. */
  operatorKeys?: OperatorKeys;
  /** The service's advertised RPC per CAIP-2 network. */
  rpcByNetwork: Record<string, string>;
  rpcOverride?: string;
  fetch?: FetchLike;
}

/** Full verification when both texts are given, else signature-only (which proves who minted it, nothing more). */
export async function verifyForExplorerWith(
  ed25519: Ed25519Backend,
  input: ExplorerVerifyInput,
): Promise<ExplorerVerdict> {
  if (input.prompt === undefined || input.response === undefined) {
    const r = await verifySignatureOnlyWith(ed25519, {
      receipt: input.receipt,
      ...pinnedKeys(input),
      ...(input.fetch ? { fetch: input.fetch } : {}),
    });
    return { mode: "signature-only", ok: r.ok, checks: r.checks, reasons: r.reasons, operatorKey: r.operatorKey };
  }
  const network = (input.receipt.payment as { network?: unknown } | undefined)?.network;
  // Solana receipts may carry the full genesis hash, of which the CAIP-2 id is a prefix; EVM ids must match exactly
  // (one chain id can be a prefix of another's).
  const advertised =
    typeof network === "string"
      ? Object.entries(input.rpcByNetwork).find(
          ([caip2]) => network === caip2 || (caip2.startsWith("solana:") && network.startsWith(caip2)),
        )?.[1]
      : undefined;
  const rpc = input.rpcOverride?.trim() || advertised;
  const r = await verifyReceiptWith(ed25519, {
    receipt: input.receipt,
    prompt: input.prompt,
    response: input.response,
    ...pinnedKeys(input),
    ...(rpc ? { rpc } : {}),
    ...(input.fetch ? { fetch: input.fetch } : {}),
  });
  return { mode: "full", ok: r.ok, checks: r.checks, reasons: r.reasons, operatorKey: r.operatorKey };
}

/** The key source the explorer was given, as the verifier takes it (both given: the verifier refuses the mix-up). */
function pinnedKeys(input: ExplorerVerifyInput): { operatorKey?: string; operatorKeys?: OperatorKeys } {
  return {
    ...(input.operatorKey !== undefined ? { operatorKey: input.operatorKey } : {}),
    ...(input.operatorKeys !== undefined ? { operatorKeys: input.operatorKeys } : {}),
  };
}

/** True when a hosted verdict's `verifier_signature` is valid under `verifierKey` (checked with `ed25519`). */
export function verifyVerdictSignatureWith(
  ed25519: Ed25519Backend,
  verdict: Record<string, unknown>,
  verifierKey: string,
): boolean {
  const { verifier_signature: signature, ...rest } = verdict;
  let message: Uint8Array;
  try {
    message = utf8ToBytes(canonicalJson(rest));
  } catch {
    return false;
  }
  return checkEd25519(ed25519, message, signature, verifierKey);
}
