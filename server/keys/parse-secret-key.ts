// Ed25519 secret keys in the forms operators have: base58 of a 32-byte seed or a 64-byte Solana secret key, or the
// Solana CLI keypair file (a JSON array of 64 numbers).
import "server-only";
import { ed25519 } from "@noble/curves/ed25519.js";
import bs58 from "bs58";

export interface Ed25519Keypair {
  /** The 32-byte private seed. */
  seed: Uint8Array;
  publicKey: Uint8Array;
  publicKeyBase58: string;
}

export class KeyFormatError extends Error {
  override name = "KeyFormatError";
}

/** Builds a keypair from a 32-byte seed or a 64-byte seed‖pubkey secret key (checking the pubkey half). */
export function keypairFromBytes(bytes: Uint8Array): Ed25519Keypair {
  if (bytes.length !== 32 && bytes.length !== 64) {
    throw new KeyFormatError(`expected a 32-byte seed or a 64-byte secret key, got ${bytes.length} bytes`);
  }
  const seed = bytes.slice(0, 32);
  const publicKey = ed25519.getPublicKey(seed);
  if (bytes.length === 64 && !equalBytes(bytes.slice(32), publicKey)) {
    // SECURITY: a 64-byte key whose public half does not match its seed is corrupt; signing with it would
    // publish receipts under a key nobody can verify.
    throw new KeyFormatError("the 64-byte secret key's public half does not match its seed");
  }
  return { seed, publicKey, publicKeyBase58: bs58.encode(publicKey) };
}

/** Parses base58 (32 or 64 bytes) or a Solana CLI JSON array. Never echoes the key in errors. */
export function parseSecretKey(text: string): Ed25519Keypair {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    let numbers: unknown;
    try {
      numbers = JSON.parse(trimmed);
    } catch {
      throw new KeyFormatError("not a valid JSON keypair array");
    }
    if (!Array.isArray(numbers) || !numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
      throw new KeyFormatError("a JSON keypair must be an array of byte values");
    }
    return keypairFromBytes(Uint8Array.from(numbers as number[]));
  }
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(trimmed);
  } catch {
    throw new KeyFormatError("not valid base58");
  }
  return keypairFromBytes(bytes);
}

/** A fresh random keypair. */
export function generateKeypair(): Ed25519Keypair {
  return keypairFromBytes(ed25519.utils.randomSecretKey());
}

/** The Solana CLI file form: a JSON array of the 64 bytes seed‖pubkey. */
export function toSolanaCliJson(keypair: Ed25519Keypair): string {
  return JSON.stringify([...keypair.seed, ...keypair.publicKey]);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
