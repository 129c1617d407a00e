// Loads a service signing key from its environment variable; in development, generates one once into the git-ignored
// data dir and reuses it. In production a missing key is a start-up error naming the variable.
import "server-only";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../env";
import {
  generateKeypair,
  KeyFormatError,
  parseSecretKey,
  toSolanaCliJson,
  type Ed25519Keypair,
} from "./parse-secret-key";

export interface LoadSigningKeyOptions {
  /** The environment variable's name, for error messages. */
  envVar: string;
  /** Its value, if set. */
  value: string | undefined;
  isProduction: boolean;
  dataDir: string;
  /** File name under dataDir for the generated dev key. */
  devFile: string;
}

/** Returns the configured keypair, or the dev keypair (generated on first use). */
export function loadSigningKey(opts: LoadSigningKeyOptions): Ed25519Keypair {
  if (opts.value !== undefined) {
    try {
      return parseSecretKey(opts.value);
    } catch (err) {
      const why = err instanceof KeyFormatError ? err.message : "unreadable";
      throw new ConfigError(`${opts.envVar} is not a valid Ed25519 secret key: ${why}`);
    }
  }
  if (opts.isProduction) {
    // SECURITY: production never invents keys; receipts signed by a throwaway key could not be verified tomorrow.
    throw new ConfigError(`${opts.envVar} is required in production`);
  }
  return loadOrCreateDevKey(path.join(opts.dataDir, opts.devFile));
}

/** Reads a Solana CLI keypair file, creating it exclusively if absent (several dev processes may race here). */
export function loadOrCreateDevKey(file: string): Ed25519Keypair {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, toSolanaCliJson(generateKeypair()), { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return parseSecretKey(readFileSync(file, "utf8"));
}
