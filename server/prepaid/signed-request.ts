// Ed25519-signed requests: the agent signs `"<METHOD> <path>\n"` followed by the exact body bytes, so the
// signature binds the route and cannot be replayed as any other message the key signs. Checked before any parsing.
import "server-only";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { AppError } from "../errors";
import { serverVerifier } from "../keys/server-verifier";
import { isBase58PublicKey } from "../verify";

/** How far a request's timestamp may be from now, either way: 60 s. */
export const SIGNED_REQUEST_WINDOW_MS = 60_000;

/** The exact bytes an agent signs for a request. */
export function signedRequestMessage(method: string, path: string, body: Uint8Array): Uint8Array {
  const prefix = utf8ToBytes(`${method} ${path}\n`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/** Checks X-Agent-Pubkey / X-Agent-Signature over the message; returns the agent key or throws 401. */
export function authenticateSignedRequest(headers: Headers, message: Uint8Array): string {
  const pubkey = headers.get("x-agent-pubkey")?.trim();
  const signature = headers.get("x-agent-signature")?.trim();
  if (!pubkey || !signature) throw new AppError("missing_auth_headers", "X-Agent-Pubkey and X-Agent-Signature are required");
  if (!isBase58PublicKey(pubkey)) throw new AppError("invalid_signature", "X-Agent-Pubkey is not a base58 Ed25519 public key");
  if (!serverVerifier.verifyEd25519(message, signature, pubkey)) throw new AppError("invalid_signature", "the signature does not match this request and key");
  return pubkey;
}

/** Refuses a timestamp outside the window with 401 `request_expired`. */
export function checkRequestWindow(timestampMs: number, now = Date.now()): void {
  if (!Number.isFinite(timestampMs) || Math.abs(now - timestampMs) > SIGNED_REQUEST_WINDOW_MS) {
    throw new AppError("request_expired", `timestamp must be within ${SIGNED_REQUEST_WINDOW_MS / 1000} s of the server's clock`, { server_time: now });
  }
}
