// The client IP for per-IP grant limits, taken through a configured number of trusted proxy hops, never blindly
// from X-Forwarded-For, and kept only as a salted HMAC (no raw IP is ever stored).
import "server-only";
import { createHmac } from "node:crypto";
import { isIP } from "node:net";

/**
 * The address the nearest trusted hop saw: with `hops` proxies that each append to X-Forwarded-For, the entry `hops`
 * from the right. With 0 hops, Next's own server is the edge and fills the header with the socket address when the
 * client sent none; a client-sent header cannot be told apart there, so production should run behind a proxy and
 * set TRUSTED_PROXY_HOPS ≥ 1 (README). Returns "unknown" when no valid address is found.
 */
export function clientIp(headers: Headers, hops: number): string {
  const entries = (headers.get("x-forwarded-for") ?? "").split(",").map((e) => e.trim()).filter(Boolean);
  const index = hops === 0 ? entries.length - 1 : entries.length - hops;
  const candidate = index >= 0 ? entries[index] : undefined;
  const address = candidate?.replace(/^\[|\]$/g, "").replace(/^::ffff:/, "");
  return address && isIP(address) ? address : "unknown";
}

/** HMAC-SHA256 of the IP under the salt, hex. */
export function hashIp(ip: string, salt: string): string {
  return createHmac("sha256", salt).update(ip).digest("hex");
}
