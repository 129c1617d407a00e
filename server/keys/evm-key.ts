// EVM secret keys: the facilitator's gas payer and the agent key files of `signet chat --network base*`.
// A key is 32 bytes of hex, with or without 0x, alone in its file or variable. In development the facilitator's is
// generated once into the git-ignored data dir; production refuses to start without one.
import "server-only";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ConfigError } from "../env";

export type EvmPrivateKey = `0x${string}`;

/** Parses a hex private key; null when it is not 32 bytes of hex or not a valid secp256k1 scalar. */
export function parseEvmPrivateKey(text: string): EvmPrivateKey | null {
  const trimmed = text.trim();
  const hex = trimmed.startsWith("0x") || trimmed.startsWith("0X") ? trimmed.slice(2) : trimmed;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const key = `0x${hex.toLowerCase()}` as EvmPrivateKey;
  try {
    privateKeyToAccount(key);
    return key;
  } catch {
    return null;
  }
}

export interface LoadEvmKeyOptions {
  envVar: string;
  value: string | undefined;
  isProduction: boolean;
  dataDir: string;
  devFile: string;
}

/** The configured EVM key, or the dev key (generated on first use). */
export function loadEvmKey(opts: LoadEvmKeyOptions): EvmPrivateKey {
  if (opts.value !== undefined) {
    const key = parseEvmPrivateKey(opts.value);
    if (!key) throw new ConfigError(`${opts.envVar} is not a valid EVM private key (32 bytes of hex)`);
    return key;
  }
  // SECURITY: production never invents a key that would hold the service's EVM deposits.
  if (opts.isProduction) throw new ConfigError(`${opts.envVar} is required in production`);
  return loadOrCreateDevEvmKey(path.join(opts.dataDir, opts.devFile));
}

/** Reads an EVM key file, creating it exclusively if absent (several dev processes may race here). */
export function loadOrCreateDevEvmKey(file: string): EvmPrivateKey {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${generatePrivateKey()}\n`, { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const key = parseEvmPrivateKey(readFileSync(file, "utf8"));
  if (!key) throw new ConfigError(`${file} does not hold an EVM private key`);
  return key;
}

/** The lower-case 0x address of a key: the form receipts and the ledger use. */
export function evmAddressOf(key: EvmPrivateKey): `0x${string}` {
  return privateKeyToAccount(key).address.toLowerCase() as `0x${string}`;
}
