// The verifier: every verification that checks an Ed25519 signature, bound to one injected backend. Nothing here is
// mutable or process-wide; the browser uses `nobleVerifier`, the server builds its own with node:crypto's backend.
import { checkEd25519, verifyEd25519Noble, type Ed25519Backend } from "./ed25519";
import { sha256Hex, type Sha256Hex } from "./hashes";
import {
  verifyForExplorerWith,
  verifyVerdictSignatureWith,
  type ExplorerVerdict,
  type ExplorerVerifyInput,
} from "./explorer";
import {
  verifyReceiptWith,
  verifySignatureOnlyWith,
  type SignatureOnlyInput,
  type SignatureOnlyResult,
  type VerifyReceiptInput,
  type VerifyResult,
} from "./verify-receipt";

export interface Verifier {
  /** True when `signatureB58` is a valid Ed25519 signature of `message` by `publicKeyB58`; false for any malformed input. */
  verifyEd25519(message: Uint8Array, signatureB58: unknown, publicKeyB58: unknown): boolean;
  /**
   * Runs all five receipt checks. Throws VerifierFetchError when the operator key or the chain could not be reached
   * (an outage is not a verdict), VerifyInputError on misuse.
   */
  verifyReceipt(input: VerifyReceiptInput): Promise<VerifyResult>;
  /** Checks only the operator signature: proves the operator minted the receipt, not that any text matches it. */
  verifySignatureOnly(input: SignatureOnlyInput): Promise<SignatureOnlyResult>;
  /** The explorer's check: full when both texts are given, else signature-only. */
  verifyForExplorer(input: ExplorerVerifyInput): Promise<ExplorerVerdict>;
  /** True when a hosted verdict's `verifier_signature` is valid under `verifierKey`. */
  verifyVerdictSignature(verdict: Record<string, unknown>, verifierKey: string): boolean;
}

/**
 * Builds a verifier whose every signature check goes through `ed25519`, and whose receipt hashes go through `sha256`
 * when given (noble's otherwise).
 * SECURITY: the backend must be strict RFC 8032 and never throw (see Ed25519Backend); `sha256` must be SHA-256 of the
 * UTF-8 bytes, as lower-case hex.
 */
export function createVerifier({
  ed25519,
  sha256 = sha256Hex,
}: {
  ed25519: Ed25519Backend;
  sha256?: Sha256Hex;
}): Verifier {
  if (typeof ed25519 !== "function") throw new TypeError("createVerifier needs an ed25519 backend function");
  if (typeof sha256 !== "function") throw new TypeError("createVerifier's sha256, when given, must be a function");
  return Object.freeze({
    verifyEd25519: (message: Uint8Array, signatureB58: unknown, publicKeyB58: unknown) =>
      checkEd25519(ed25519, message, signatureB58, publicKeyB58),
    verifyReceipt: (input: VerifyReceiptInput) => verifyReceiptWith(ed25519, input, sha256),
    verifySignatureOnly: (input: SignatureOnlyInput) => verifySignatureOnlyWith(ed25519, input),
    verifyForExplorer: (input: ExplorerVerifyInput) => verifyForExplorerWith(ed25519, input),
    verifyVerdictSignature: (verdict: Record<string, unknown>, verifierKey: string) =>
      verifyVerdictSignatureWith(ed25519, verdict, verifierKey),
  });
}

/** The default verifier, with noble: what the browser (the explorer) runs. */
export const nobleVerifier: Verifier = createVerifier({ ed25519: verifyEd25519Noble });

/** The default verifier's methods, for callers with no reason to choose a backend (the browser, tests). */
export const { verifyEd25519, verifyReceipt, verifySignatureOnly, verifyForExplorer, verifyVerdictSignature } =
  nobleVerifier;
