// The agent side of signed requests: headers for `signet-prepaid-v1\n<METHOD> <origin><path>\n` + body, signed with the
// agent's key. The URL is the service's public origin and the route's path: the signature is good on that service only.
import "server-only";
import { randomBytes } from "node:crypto";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { signDetached } from "../receipts/sign-receipt";
import { signedRequestMessage } from "../prepaid/signed-request";
import { MCP_PATH } from "../mcp/mcp-payment-binding";
import { mcpToolCallBytes } from "../mcp/mcp-prepaid";

/** The X-Agent-* headers for a request to `url` (e.g. `https://host/api/v1/inference`) whose body is exactly `body`. */
export function signRequestHeaders(
  keypair: Ed25519Keypair,
  method: string,
  url: string,
  body: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "X-Agent-Pubkey": keypair.publicKeyBase58,
    "X-Agent-Signature": signDetached(signedRequestMessage(method, url, utf8ToBytes(body)), keypair),
  };
}

/**
 * The X-Agent-* headers for a signed read of `url` (`https://host/api/v1/credits/<pubkey>`; a query is not signed) at
 * `timestamp` (epoch ms, as a string: the sender's clock).
 */
export function signReadHeaders(keypair: Ed25519Keypair, url: string, timestamp: string): Record<string, string> {
  return {
    "X-Agent-Pubkey": keypair.publicKeyBase58,
    "X-Agent-Timestamp": timestamp,
    "X-Agent-Signature": signDetached(signedRequestMessage("GET", url, utf8ToBytes(timestamp)), keypair),
  };
}

/** A fresh nonce (22 url-safe characters). */
export function newNonce(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * The `_meta["org.signet/prepaid"]` of an MCP tool call spent from prepaid credit on the service at `origin`: the
 * signature of `POST <origin>/mcp` over the call's canonical `{ name, arguments }` (which carry `nonce` and `timestamp`).
 */
export function signMcpToolCall(
  keypair: Ed25519Keypair,
  origin: string,
  name: string,
  args: Record<string, unknown>,
): { pubkey: string; signature: string } {
  const message = signedRequestMessage("POST", `${new URL(origin).origin}${MCP_PATH}`, mcpToolCallBytes(name, args));
  return { pubkey: keypair.publicKeyBase58, signature: signDetached(message, keypair) };
}
