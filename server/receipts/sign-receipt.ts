// Signing receipts and other service documents: a detached Ed25519 signature, base58, over the UTF-8 canonical JSON
// of the document without its signature field. The same canonical bytes the pure verifier checks (server/verify) are
// the ones signed here.
import "server-only";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import bs58 from "bs58";
import { canonicalJson, receiptSigningBytes } from "../verify";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { signEd25519 } from "../keys/node-ed25519";
import type { Receipt, UnsignedReceipt } from "./receipt-types";

/** Base58 detached Ed25519 signature of `message`. */
export function signDetached(message: Uint8Array, keypair: Ed25519Keypair): string {
  return bs58.encode(signEd25519(message, keypair.seed));
}

/** Signs a receipt: `service_signature` over the canonical JSON of every other field. */
export function signReceipt(unsigned: UnsignedReceipt, keypair: Ed25519Keypair): Receipt {
  const signature = signDetached(receiptSigningBytes(unsigned as unknown as Record<string, unknown>), keypair);
  return { ...unsigned, service_signature: signature };
}

/** Signs an arbitrary JSON document under `field` (e.g. the hosted verdict's `verifier_signature`). */
export function signDocument<T extends Record<string, unknown>, F extends string>(
  doc: T,
  field: F,
  keypair: Ed25519Keypair,
): T & Record<F, string> {
  const signature = signDetached(utf8ToBytes(canonicalJson(doc)), keypair);
  return { ...doc, [field]: signature } as T & Record<F, string>;
}

/** The `X-Service-Receipt` header value: base64 of the receipt JSON. */
export function encodeReceiptHeader(receipt: Receipt): string {
  return Buffer.from(JSON.stringify(receipt), "utf8").toString("base64");
}
