// Ed25519-signed requests: the agent signs `signet-prepaid-v1\n<METHOD> <origin><path>\n` followed by the exact body
// bytes. The version tag and the route keep the signature from meaning any other message the key signs; the origin (the
// service's configured public base URL) keeps a captured request from being replayed on another deployment. Checked
// before any parsing.
import "server-only";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { AppError } from "../errors";
import { serverVerifier } from "../keys/server-verifier";
import { isBase58PublicKey } from "../verify";

/** How far a request's timestamp may be from now, either way: 60 s. */
export const SIGNED_REQUEST_WINDOW_MS = 60_000;
/** The first line of every signed message; a new form gets a new tag, so an old signature never reads as a new one. */
const SIGNED_REQUEST_VERSION = "signet-prepaid-v1";

/** `<origin><path>` of a URL (no query, no fragment), as both sides write it: `https://host/api/v1/inference`. */
function signedTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** Whether a request asks to be served from prepaid credit: it carries either signed-request header. */
export function isSignedRequest(headers: Headers): boolean {
  return headers.has("x-agent-signature") || headers.has("x-agent-pubkey");
}

/** The exact bytes an agent signs for a request to `url` (the service's origin and the route's path). */
export function signedRequestMessage(method: string, url: string, body: Uint8Array): Uint8Array {
  return withPrefix(`${SIGNED_REQUEST_VERSION}\n${method} ${signedTarget(url)}\n`, body);
}

/** The form before the origin was bound in (`<METHOD> <path>\n` + body): refused, and recognised to say so. */
function unboundRequestMessage(method: string, path: string, body: Uint8Array): Uint8Array {
  return withPrefix(`${method} ${path}\n`, body);
}

function withPrefix(prefix: string, body: Uint8Array): Uint8Array {
  const head = utf8ToBytes(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

/**
 * Checks X-Agent-Pubkey / X-Agent-Signature over the message for `<METHOD> <path>` on this service's origin; returns the
 * agent key or throws 401. A signature in the old form (no version, no origin) is refused with a detail saying so.
 */
export function authenticateSignedRequest(
  baseUrl: string,
  headers: Headers,
  method: string,
  path: string,
  body: Uint8Array,
): string {
  const pubkey = headers.get("x-agent-pubkey")?.trim();
  const signature = headers.get("x-agent-signature")?.trim();
  if (!pubkey || !signature)
    throw new AppError("missing_auth_headers", "X-Agent-Pubkey and X-Agent-Signature are required");
  if (!isBase58PublicKey(pubkey))
    throw new AppError("invalid_signature", "X-Agent-Pubkey is not a base58 Ed25519 public key");
  const target = signedTarget(`${baseUrl}${path}`);
  // SECURITY: only the current form, naming this service's origin, is accepted.
  if (serverVerifier.verifyEd25519(signedRequestMessage(method, target, body), signature, pubkey)) return pubkey;
  const detail = `the signed message must start with ${SIGNED_REQUEST_VERSION} and name the origin: "${SIGNED_REQUEST_VERSION}\\n${method} ${target}\\n" followed by the ${method === "GET" ? "X-Agent-Timestamp value" : "exact body bytes"}`;
  if (serverVerifier.verifyEd25519(unboundRequestMessage(method, path, body), signature, pubkey)) {
    throw new AppError(
      "invalid_signature",
      "this request is signed in the old form, which names no service; sign it again in the current form",
      { detail },
    );
  }
  throw new AppError("invalid_signature", "the signature does not match this request, this service and this key", {
    detail,
  });
}

/** Refuses a timestamp outside the window around `now` (the server's clock) with 401 `request_expired`. */
export function checkRequestWindow(timestampMs: number, now: number): void {
  if (!Number.isFinite(timestampMs) || Math.abs(now - timestampMs) > SIGNED_REQUEST_WINDOW_MS) {
    throw new AppError(
      "request_expired",
      `timestamp must be within ${SIGNED_REQUEST_WINDOW_MS / 1000} s of the server's clock`,
      { server_time: now },
    );
  }
}
