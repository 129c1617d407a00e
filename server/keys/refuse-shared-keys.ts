// The rule that every service role has a key of its own: given each role's loaded key, refuses any two that share one,
// with a ConfigError naming both variables. Pure: the callers load the keys (npm start loads every role's before serving).
import "server-only";
import bs58 from "bs58";
import { hexToBytes } from "viem";
import { ConfigError, SERVICE_KEY_VARIABLES } from "../env";
import type { EvmPrivateKey } from "./evm-key";
import type { Ed25519Keypair } from "./parse-secret-key";

export { SERVICE_KEY_VARIABLES } from "../env";

export type ServiceKeyVariable = (typeof SERVICE_KEY_VARIABLES)[number];

/** One role's loaded key, as the comparison sees it. */
export interface RoleKey {
  /** The variable that names the role's key (in development, the dev key stands in for it). */
  variable: ServiceKeyVariable;
  /** The 32 secret bytes: an Ed25519 seed, or a secp256k1 private scalar (big-endian). */
  secret: Uint8Array;
  /** The Ed25519 public key; null for the EVM relayer, whose public key lives on another curve. */
  publicKey: Uint8Array | null;
}

/** An Ed25519 role's key: its seed and its public key. */
export function ed25519RoleKey(variable: ServiceKeyVariable, keypair: Ed25519Keypair): RoleKey {
  return assertRoleKey({ variable, secret: keypair.seed, publicKey: keypair.publicKey });
}

/** The EVM relayer's key: its 32 secret bytes, compared with the Ed25519 seeds (there is no public key to compare). */
export function evmRoleKey(variable: ServiceKeyVariable, key: EvmPrivateKey): RoleKey {
  if (!/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new TypeError(`evmRoleKey: ${variable}'s key must be 0x and 32 bytes of hex`);
  return assertRoleKey({ variable, secret: hexToBytes(key), publicKey: null });
}

/**
 * Throws a ConfigError naming both variables when two of `roles` share a key: the same Ed25519 public key, or the
 * same 32 secret bytes (which also catches one secret used both as an Ed25519 seed and as the EVM relayer's key).
 * Of the two, the role later in SERVICE_KEY_VARIABLES is named first, whatever order `roles` come in
 * (`LOG_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY`). Misuse (a secret or public key that is not 32
 * bytes, a variable that names no role or is given twice) throws a TypeError.
 */
export function refuseSharedKeys(roles: readonly RoleKey[]): void {
  const seen = new Set<ServiceKeyVariable>();
  for (const role of roles) {
    assertRoleKey(role);
    if (seen.has(role.variable)) throw new TypeError(`refuseSharedKeys: ${role.variable} is given twice`);
    seen.add(role.variable);
  }
  // SECURITY: one key in two roles lets a signature made in one role stand for the other (a verdict or a checkpoint
  // read as a receipt), and a leak of one role's key hands over the other, the hot fee payers' above all.
  const ordered = [...roles].sort(
    (a, b) => SERVICE_KEY_VARIABLES.indexOf(a.variable) - SERVICE_KEY_VARIABLES.indexOf(b.variable),
  );
  for (const [j, later] of ordered.entries()) {
    for (const earlier of ordered.slice(0, j)) {
      const shared = sharedKey(later, earlier);
      if (shared)
        throw new ConfigError(
          `${later.variable} must differ from ${earlier.variable}: ${shared}; each service role needs a key of its own`,
        );
    }
  }
}

/** How `a` and `b` share a key, for the error message (never the secret itself); null when they do not. */
function sharedKey(a: RoleKey, b: RoleKey): string | null {
  if (a.publicKey !== null && b.publicKey !== null && equalBytes(a.publicKey, b.publicKey))
    return `both are the key ${bs58.encode(a.publicKey)}`;
  if (equalBytes(a.secret, b.secret)) return "both hold the same 32 secret bytes";
  return null;
}

/** `role`, unless it is malformed (a caller's bug, so a TypeError): a variable naming no role, or keys not 32 bytes. */
function assertRoleKey(role: RoleKey): RoleKey {
  if (!SERVICE_KEY_VARIABLES.includes(role.variable))
    throw new TypeError(`${String(role.variable)} names no service role`);
  if (!(role.secret instanceof Uint8Array) || role.secret.length !== 32)
    throw new TypeError(`${role.variable}'s secret must be 32 bytes`);
  if (role.publicKey !== null && (!(role.publicKey instanceof Uint8Array) || role.publicKey.length !== 32)) {
    throw new TypeError(`${role.variable}'s public key must be 32 bytes, or null for a key with no Ed25519 public key`);
  }
  return role;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
