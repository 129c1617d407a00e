// The client IP for per-IP limits (grants, challenge issuance), and its salted HMAC (no raw IP is ever stored). With
// no trusted proxy it is the TCP peer's address, which only the custom server writes (server/http/peer-address.ts);
// X-Forwarded-For is read only through a configured number of trusted proxy hops, counted from the right.
import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import type { Config } from "../env";
import { ipHashSalt } from "./ip-hash-salt";
import type { Settings } from "../settings/setting-definitions";
import { PEER_ADDRESS_HEADER } from "./peer-address";

/**
 * The address the nearest trusted hop saw. With `hops` = 0: the peer-address header (the socket's own address);
 * X-Forwarded-For is ignored, since any client can write it. With `hops` ≥ 1 proxies that each append to
 * X-Forwarded-For: the entry `hops` from the right. An IPv6 address counts as its /64 (one host's usual share).
 * Returns "unknown" when no valid address is found (all such requests then share one limit).
 */
export function clientIp(headers: Headers, hops: number): string {
  let candidate: string | undefined;
  if (hops === 0) {
    candidate = headers.get(PEER_ADDRESS_HEADER)?.trim();
  } else {
    const entries = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    candidate = entries.length >= hops ? entries[entries.length - hops] : undefined;
  }
  const address = candidate?.replace(/^\[|\]$/g, "").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  if (!address) return "unknown";
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return ipv6Slash64(address);
  return "unknown";
}

/** The /64 prefix of an IPv6 address, written as its first four groups (zone id dropped). */
function ipv6Slash64(address: string): string {
  const unzoned = address.toLowerCase().replace(/%.*$/, "");
  const [head = "", tail] = unzoned.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/** HMAC-SHA256 of the IP under the salt, hex. */
export function hashIp(ip: string, salt: string): string {
  return createHmac("sha256", salt).update(ip).digest("hex");
}

/** Stands in for IP_HASH_SALT in rate-limit keys when production runs without it (grants are then off). */
const PROCESS_RATE_LIMIT_KEY = randomBytes(32).toString("hex");

/**
 * The hashed client IP that per-IP rate limits count under: salted like grant IP hashes. In production without
 * IP_HASH_SALT a per-process key stands in, so sign-in still works and each instance counts on its own.
 */
export function rateLimitIpHash(
  headers: Headers,
  settings: Settings,
  cfg: Pick<Config, "isProduction" | "dataDir" | "trustedProxyHops">,
): string {
  const salt = settings.ipHashSalt ?? (cfg.isProduction ? PROCESS_RATE_LIMIT_KEY : ipHashSalt(settings, cfg));
  return hashIp(clientIp(headers, cfg.trustedProxyHops), salt);
}
