// Ed25519 through node:crypto (OpenSSL) for the server: about 15× faster than pure-JS noble for signing receipts and
// checking signed requests (profiled: noble's verify capped offline verification at ~1,000/s and its sign was the
// largest cost of a prepaid call). The browser keeps noble; the server's verifier (server-verifier.ts) uses this one.
import "server-only";
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import type { Ed25519Backend } from "../verify";

const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/**
 * Bounded memo caches of decoded keys (public: MAX_CACHED_KEYS entries, then cleared; private: keyed weakly by the
 * seed's bytes); the service sees few distinct operator and agent keys. Bounded so input cannot grow it.
 */
const MAX_CACHED_KEYS = 10_000;
const publicKeys = new Map<string, KeyObject>();
const privateKeys = new WeakMap<Uint8Array, KeyObject>();

function publicKeyObject(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw).toString("hex");
  let key = publicKeys.get(id);
  if (!key) {
    if (publicKeys.size >= MAX_CACHED_KEYS) publicKeys.clear();
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
    publicKeys.set(id, key);
  }
  return key;
}

/** Detached Ed25519 signature of `message` with a 32-byte seed (RFC 8032: the same bytes noble would produce). */
export function signEd25519(message: Uint8Array, seed: Uint8Array): Uint8Array {
  let key = privateKeys.get(seed);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
    privateKeys.set(seed, key);
  }
  return sign(null, message, key);
}

/** The server's Ed25519Backend: strict RFC 8032 verification; false (never a throw) for malformed input. */
export const verifyEd25519Node: Ed25519Backend = (signature, message, publicKey) => {
  try {
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
};
