// Operator sessions: a cookie holding `<payload>.<hmac>`, HMAC-SHA256 under SESSION_SECRET, HttpOnly,
// SameSite=Strict, Secure in production, and expiring. The operator list is re-checked on every read, and so is the
// operator's session generation: sign-out bumps it, which revokes every token issued before.
import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { DbClient } from "../db";
import { ConfigError, type Config } from "../env";
import { isBase58PublicKey } from "../verify";
import { devOperatorSignInKey } from "./dev-operator";

const SESSION_COOKIE = "signet_session";
/** How long a sign-in lasts. */
const SESSION_TTL_MS = 8 * 60 * 60_000;

/** What sessions are checked and signed with. */
export type SessionConfig = Pick<Config, "SERVICE_OPERATOR_PUBKEYS" | "SESSION_SECRET" | "isProduction" | "dataDir">;

export interface OperatorSession {
  pubkey: string;
  expiresAt: number;
}

/** The configured operator keys, and outside production the generated dev sign-in key. */
export function operatorPubkeys(cfg: SessionConfig): ReadonlySet<string> {
  const keys = new Set(
    cfg.SERVICE_OPERATOR_PUBKEYS.split(",")
      .map((k) => k.trim())
      .filter(isBase58PublicKey),
  );
  const dev = devOperatorSignInKey(cfg);
  if (dev) keys.add(dev.publicKeyBase58);
  return keys;
}

function sessionSecret(cfg: SessionConfig): string {
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

function mac(cfg: SessionConfig, payload: string): string {
  return createHmac("sha256", sessionSecret(cfg)).update(payload).digest("base64url");
}

/** The operator's current session generation (0 until the first sign-out). */
async function sessionGeneration(db: DbClient, pubkey: string): Promise<number> {
  return (await db.operatorSessionGeneration.findUnique({ where: { pubkey } }))?.generation ?? 0;
}

/** A signed session token for `pubkey`, bound to the operator's current generation, valid SESSION_TTL_MS from `now`. */
export async function createSessionToken(
  db: DbClient,
  cfg: SessionConfig,
  pubkey: string,
  now: number,
): Promise<string> {
  const gen = await sessionGeneration(db, pubkey);
  const payload = Buffer.from(JSON.stringify({ sub: pubkey, exp: now + SESSION_TTL_MS, gen })).toString("base64url");
  return `${payload}.${mac(cfg, payload)}`;
}

/**
 * Signs out: bumps the session generation of the operator whose valid session the cookie holds, so that token and
 * every other token issued to that operator before now are refused. Without a valid session there is nothing to do.
 */
export async function signOut(
  db: DbClient,
  cfg: SessionConfig,
  cookieHeader: string | null,
  now: number,
): Promise<void> {
  const session = await readSession(db, cfg, cookieHeader, now);
  if (!session) return;
  await db.$executeRaw`
    INSERT INTO operator_session_generations (pubkey, generation) VALUES (${session.pubkey}, 1)
    ON CONFLICT (pubkey) DO UPDATE SET generation = operator_session_generations.generation + 1, updated_at = now()`;
}

/** The Set-Cookie value for a token (or for signing out, with an empty token). */
export function sessionCookie(token: string, cfg: Pick<Config, "isProduction">): string {
  const parts = [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${token ? SESSION_TTL_MS / 1000 : 0}`,
  ];
  if (cfg.isProduction) parts.push("Secure");
  return parts.join("; ");
}

/**
 * The operator session in a Cookie header at `now`, or null (missing, forged, expired, signed out, or no longer an
 * operator).
 */
export async function readSession(
  db: DbClient,
  cfg: SessionConfig,
  cookieHeader: string | null,
  now: number,
): Promise<OperatorSession | null> {
  const token = cookieHeader
    ?.split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`))
    ?.slice(SESSION_COOKIE.length + 1);
  if (!token) return null;
  const [payload, signature] = token.split(".");
  if (!payload || !signature) return null;
  const expected = Buffer.from(mac(cfg, payload));
  const given = Buffer.from(signature);
  // SECURITY: constant-time comparison of the MAC.
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let claims: { sub?: unknown; exp?: unknown; gen?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      sub?: unknown;
      exp?: unknown;
      gen?: unknown;
    };
  } catch {
    return null;
  }
  if (
    typeof claims.sub !== "string" ||
    typeof claims.exp !== "number" ||
    typeof claims.gen !== "number" ||
    claims.exp <= now
  )
    return null;
  if (!operatorPubkeys(cfg).has(claims.sub)) return null;
  // SECURITY: a token from before the operator's last sign-out carries an older generation.
  if (claims.gen !== (await sessionGeneration(db, claims.sub))) return null;
  return { pubkey: claims.sub, expiresAt: claims.exp };
}
