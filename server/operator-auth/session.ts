// Operator sessions: a cookie holding `<payload>.<hmac>`, HMAC-SHA256 under SESSION_SECRET, HttpOnly,
// SameSite=Strict, Secure in production, and expiring. The operator list is re-checked on every read.
import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { config, ConfigError } from "../env";
import { isBase58PublicKey } from "../verify";

export const SESSION_COOKIE = "signet_session";
/** How long a sign-in lasts. */
export const SESSION_TTL_MS = 8 * 60 * 60_000;

export interface OperatorSession {
  pubkey: string;
  expiresAt: number;
}

/** The configured operator keys. */
export function operatorPubkeys(): ReadonlySet<string> {
  return new Set(config().SERVICE_OPERATOR_PUBKEYS.split(",").map((k) => k.trim()).filter(isBase58PublicKey));
}

function sessionSecret(): string {
  const cfg = config();
  if (cfg.SESSION_SECRET) return cfg.SESSION_SECRET;
  if (cfg.isProduction) throw new ConfigError("SESSION_SECRET is required in production");
  const file = path.join(cfg.dataDir, "session-secret");
  mkdirSync(cfg.dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return readFileSync(file, "utf8").trim();
}

function mac(payload: string): string {
  return createHmac("sha256", sessionSecret()).update(payload).digest("base64url");
}

/** A signed session token for `pubkey`. */
export function createSessionToken(pubkey: string, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ sub: pubkey, exp: now + SESSION_TTL_MS })).toString("base64url");
  return `${payload}.${mac(payload)}`;
}

/** The Set-Cookie value for a token (or for signing out, with an empty token). */
export function sessionCookie(token: string): string {
  const parts = [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Strict", `Max-Age=${token ? SESSION_TTL_MS / 1000 : 0}`];
  if (config().isProduction) parts.push("Secure");
  return parts.join("; ");
}

/** The operator session in a Cookie header, or null (missing, forged, expired, or no longer an operator). */
export function readSession(cookieHeader: string | null, now = Date.now()): OperatorSession | null {
  const token = cookieHeader
    ?.split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`))
    ?.slice(SESSION_COOKIE.length + 1);
  if (!token) return null;
  const [payload, signature] = token.split(".");
  if (!payload || !signature) return null;
  const expected = Buffer.from(mac(payload));
  const given = Buffer.from(signature);
  // SECURITY: constant-time comparison of the MAC.
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let claims: { sub?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { sub?: unknown; exp?: unknown };
  } catch {
    return null;
  }
  if (typeof claims.sub !== "string" || typeof claims.exp !== "number" || claims.exp <= now) return null;
  if (!operatorPubkeys().has(claims.sub)) return null;
  return { pubkey: claims.sub, expiresAt: claims.exp };
}
