// Ed25519 detached signatures over base58 keys and signatures (@noble/curves + bs58). Pure and browser-safe.
import { ed25519 } from "@noble/curves/ed25519.js";
import bs58 from "bs58";

/** Decodes base58, or returns null for anything that is not valid base58 of the expected length. */
export function decodeBase58(text: unknown, expectedLength?: number): Uint8Array | null {
  if (typeof text !== "string" || text.length === 0 || text.length > 128) return null;
  try {
    const bytes = bs58.decode(text);
    if (expectedLength !== undefined && bytes.length !== expectedLength) return null;
    return bytes;
  } catch {
    return null;
  }
}

type Ed25519Verifier = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** SECURITY: strict RFC 8032 verification (zip215: false) so noble and node:crypto agree on every signature. */
const nobleVerifier: Ed25519Verifier = (signature, message, publicKey) => {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
};
let verifier: Ed25519Verifier = nobleVerifier;

/**
 * Replaces the signature check (a server installs node:crypto's, server/keys/node-ed25519.ts). Browsers keep noble.
 * The replacement must be strict RFC 8032 and never throw.
 */
export function useEd25519Verifier(next: Ed25519Verifier): void {
  verifier = next;
}

/** True when `signatureB58` is a valid Ed25519 signature of `message` by `publicKeyB58`; false for any malformed input. */
export function verifyEd25519(message: Uint8Array, signatureB58: unknown, publicKeyB58: unknown): boolean {
  const signature = decodeBase58(signatureB58, 64);
  const publicKey = decodeBase58(publicKeyB58, 32);
  if (!signature || !publicKey) return false;
  return verifier(signature, message, publicKey);
}

/** True for a base58 string that decodes to a 32-byte public key. */
export function isBase58PublicKey(text: unknown): text is string {
  return decodeBase58(text, 32) !== null;
}
