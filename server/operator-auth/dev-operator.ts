// The operator's first minute in dev: outside production the service generates a dashboard sign-in key into the data
// directory and lets it in, beside SERVICE_OPERATOR_PUBKEYS, so `npm run dev` can print a one-time sign-in link and
// `signet operator login-link` needs no key file named. Production never reads or makes this key: only the keys an
// operator lists sign in there.
import "server-only";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { Config } from "../env";
import { loadOrCreateDevKey } from "../keys/load-signing-key";
import type { Ed25519Keypair } from "../keys/parse-secret-key";
import { signDetached } from "../receipts/sign-receipt";
import { loginLinkMessage, SIGN_IN_TTL_MS } from "./login-link-message";

/** The dev dashboard key's file in the data directory (Solana CLI JSON, like the other dev keys). */
export const DEV_OPERATOR_SIGN_IN_KEY_FILE = "operator-signin-key.json";

/** Bounded memo cache: the dev sign-in key of each data dir, read (or made) once (bound: the data dirs used, dev only). */
const loaded = new Map<string, Ed25519Keypair>();

/** Outside production, the generated dashboard sign-in key (made on first use); null in production. */
export function devOperatorSignInKey(cfg: Pick<Config, "isProduction" | "dataDir">): Ed25519Keypair | null {
  if (cfg.isProduction) return null;
  const file = path.join(cfg.dataDir, DEV_OPERATOR_SIGN_IN_KEY_FILE);
  let key = loaded.get(file);
  if (!key) {
    key = loadOrCreateDevKey(file);
    loaded.set(file, key);
  }
  return key;
}

/** A one-time login link to `serviceUrl`'s dashboard signed by `keypair`, valid for SIGN_IN_TTL_MS from `now` (epoch ms). */
export function signedLoginLink(serviceUrl: string, keypair: Ed25519Keypair, now: number): string {
  const endpoint = serviceUrl.replace(/\/+$/, "");
  const message = loginLinkMessage(
    endpoint,
    keypair.publicKeyBase58,
    randomBytes(16).toString("hex"),
    new Date(now + SIGN_IN_TTL_MS),
  );
  const signature = signDetached(utf8ToBytes(message), keypair);
  return `${endpoint}/api/operator/login-link?m=${Buffer.from(message).toString("base64url")}&s=${signature}`;
}
