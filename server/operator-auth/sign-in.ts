// Operator sign-in: the server issues a single-use, short-lived challenge; an operator's wallet signs it;
// a valid signature by a listed operator yields a session. `signet operator login-link` signs a one-time link
// with an operator key file for servers reached without a browser wallet.
import "server-only";
import { randomBytes } from "node:crypto";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { z } from "zod";
import type { DbClient } from "../db";
import { isUniqueViolation } from "../db";
import { AppError } from "../errors";
import { logEvent, type Logger } from "../log";
import type { Clock } from "../clock";
import { serverVerifier } from "../keys/server-verifier";
import { isBase58PublicKey } from "../verify";
import { loginLinkMessage, SIGN_IN_TTL_MS } from "./login-link-message";
import { createSessionToken, operatorPubkeys, type SessionConfig } from "./session";

export { SIGN_IN_TTL_MS };

/** What signing in reads time from and logs to: the runtime's clock and logger. */
export interface SignInDeps {
  clock: Clock;
  log: Logger;
}

export const signInSchema = z
  .object({
    pubkey: z.string().refine(isBase58PublicKey, { message: "must be a base58 public key" }),
    message: z.string().min(1).max(1_000),
    signature: z.string().min(1).max(128),
  })
  .strict();

/** Issues a sign-in challenge to be signed by an operator wallet. */
export async function issueSignInChallenge(
  db: DbClient,
  serviceUrl: string,
  clock: Clock,
): Promise<{ message: string; expires_at: string }> {
  const nonce = randomBytes(16).toString("hex");
  const expiresAt = new Date(clock.now() + SIGN_IN_TTL_MS);
  const message = [
    "Sign in to the Signet operator dashboard.",
    "",
    `Service: ${serviceUrl}`,
    `Nonce: ${nonce}`,
    `Expires: ${expiresAt.toISOString()}`,
  ].join("\n");
  await db.operatorChallenge.create({ data: { nonce, message, expiresAt } });
  return { message, expires_at: expiresAt.toISOString() };
}

/** Checks an operator's signature of an issued challenge and returns a session token. */
export async function signIn(
  db: DbClient,
  cfg: SessionConfig,
  input: z.infer<typeof signInSchema>,
  deps: SignInDeps,
): Promise<string> {
  if (!operatorPubkeys(cfg).has(input.pubkey)) {
    logEvent(deps.log, "operator.sign_in_refused", { pubkey: input.pubkey, reason: "not_an_operator" }, "warn");
    throw new AppError("forbidden", "this key is not an operator of this service");
  }
  if (!serverVerifier.verifyEd25519(utf8ToBytes(input.message), input.signature, input.pubkey))
    throw new AppError("invalid_signature", "the signature does not match the challenge");
  const nonce = /^Nonce: ([0-9a-f]{32})$/m.exec(input.message)?.[1];
  const now = new Date(deps.clock.now());
  const used = nonce
    ? await db.operatorChallenge.updateMany({
        where: { nonce, message: input.message, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      })
    : { count: 0 };
  if (used.count !== 1)
    throw new AppError("challenge_expired", "this challenge expired or was already used; fetch a new one");
  logEvent(deps.log, "operator.signed_in", { pubkey: input.pubkey });
  return createSessionToken(db, cfg, input.pubkey, deps.clock.now());
}

/** Redeems a login link (message + signature, both from the URL) exactly once; returns a session token. */
export async function redeemLoginLink(
  db: DbClient,
  cfg: SessionConfig,
  message: string,
  signature: string,
  serviceUrl: string,
  deps: SignInDeps,
): Promise<string> {
  const pubkey = /^Operator: (\S+)$/m.exec(message)?.[1];
  const nonce = /^Nonce: ([0-9a-f]{32})$/m.exec(message)?.[1];
  const expires = Date.parse(/^Expires: (\S+)$/m.exec(message)?.[1] ?? "");
  if (
    !pubkey ||
    !nonce ||
    !Number.isFinite(expires) ||
    message !== loginLinkMessage(serviceUrl, pubkey, nonce, new Date(expires))
  ) {
    throw new AppError("invalid_request", "this is not a login link for this service");
  }
  if (!operatorPubkeys(cfg).has(pubkey)) throw new AppError("forbidden", "this key is not an operator of this service");
  if (!serverVerifier.verifyEd25519(utf8ToBytes(message), signature, pubkey))
    throw new AppError("invalid_signature", "the login link's signature is not valid");
  const now = deps.clock.now();
  if (expires <= now || expires > now + SIGN_IN_TTL_MS + 60_000)
    throw new AppError("challenge_expired", "this login link expired");
  try {
    await db.operatorChallenge.create({
      data: { nonce, message, expiresAt: new Date(expires), usedAt: new Date(now) },
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("challenge_expired", "this login link was already used");
    throw err;
  }
  logEvent(deps.log, "operator.signed_in", { pubkey, via: "login_link" });
  return createSessionToken(db, cfg, pubkey, now);
}
