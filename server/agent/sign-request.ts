// The agent side of signed requests: headers for `"<METHOD> <path>\n" + body`, signed with the agent's key.
import "server-only";
import { randomBytes } from "node:crypto";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { signDetached } from "../receipts/sign-receipt";
import { signedRequestMessage } from "../prepaid/signed-request";

/** The X-Agent-* headers for a request whose body is exactly `body`. */
export function signRequestHeaders(keypair: Ed25519Keypair, method: string, path: string, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "X-Agent-Pubkey": keypair.publicKeyBase58,
    "X-Agent-Signature": signDetached(signedRequestMessage(method, path, utf8ToBytes(body)), keypair),
  };
}

/** A fresh nonce (22 url-safe characters). */
export function newNonce(): string {
  return randomBytes(16).toString("base64url");
}
