// Ed25519 detached signatures over base58 keys and signatures, with the signature check itself injected: the browser
// uses noble (@noble/curves), a server passes node:crypto's. Pure and browser-safe.
import { ed25519 } from "@noble/curves/ed25519.js";
import { decodeBase58Bytes } from "./base58";

/**
 * Bounded memo cache of public keys decoded lately (KEY_CACHE_SIZE entries): a verification decodes its operator key
 * twice, and most see the same few keys.
 */
const KEY_CACHE_SIZE = 256;
const decodedKeys = new Map<string, Uint8Array>();

/** Decodes base58, or returns null for anything that is not valid base58 of the expected length. */
export function decodeBase58(text: unknown, expectedLength?: number): Uint8Array | null {
  if (typeof text !== "string" || text.length === 0 || text.length > 128) return null;
  const key = expectedLength === 32 ? decodedKeys.get(text) : undefined;
  if (key) return key.slice();
  const bytes = decodeBase58Bytes(text);
  if (bytes === null || (expectedLength !== undefined && bytes.length !== expectedLength)) return null;
  if (expectedLength === 32) {
    if (decodedKeys.size >= KEY_CACHE_SIZE) decodedKeys.delete(decodedKeys.keys().next().value as string);
    decodedKeys.set(text, bytes.slice());
  }
  return bytes;
}

/**
 * A raw Ed25519 check over a 64-byte signature, the message and a 32-byte public key.
 * SECURITY: it must be strict RFC 8032 (no ZIP-215 leniency, S below the group order) so every backend accepts exactly
 * the same signatures, and it must return false, never throw, for malformed input.
 */
export type Ed25519Backend = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** The browser's backend: noble with zip215 off, which agrees with node:crypto (OpenSSL) on every signature. */
export const verifyEd25519Noble: Ed25519Backend = (signature, message, publicKey) => {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
};

/** Checks base58 signature and key with `backend`; false for any malformed input, which never reaches the backend. */
export function checkEd25519(
  backend: Ed25519Backend,
  message: Uint8Array,
  signatureB58: unknown,
  publicKeyB58: unknown,
): boolean {
  const signature = decodeBase58(signatureB58, 64);
  const publicKey = decodeBase58(publicKeyB58, 32);
  if (!signature || !publicKey) return false;
  return backend(signature, message, publicKey);
}

/** True for a base58 string that decodes to a 32-byte public key. */
export function isBase58PublicKey(text: unknown): text is string {
  return decodeBase58(text, 32) !== null;
}
