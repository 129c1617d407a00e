import bs58 from "bs58";
import { bytesToHex } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../env";
import type { EvmPrivateKey } from "./evm-key";
import { generateKeypair, type Ed25519Keypair } from "./parse-secret-key";
import {
  ed25519RoleKey,
  evmRoleKey,
  refuseSharedKeys,
  SERVICE_KEY_VARIABLES,
  type RoleKey,
  type ServiceKeyVariable,
} from "./refuse-shared-keys";

const ED25519_VARIABLES = SERVICE_KEY_VARIABLES.filter((v) => v !== "FACILITATOR_EVM_SECRET_KEY");

/** Every role with a fresh key of its own, in SERVICE_KEY_VARIABLES order. */
function distinctRoles(): RoleKey[] {
  return [
    ...ED25519_VARIABLES.map((v) => ed25519RoleKey(v, generateKeypair())),
    evmRoleKey("FACILITATOR_EVM_SECRET_KEY", generatePrivateKey()),
  ];
}

/** The EVM relayer's key written with the same 32 bytes as an Ed25519 seed. */
const evmKeyFromSeed = (keypair: Ed25519Keypair): EvmPrivateKey => bytesToHex(keypair.seed);

/** Every role, where `earlier` and `later` share one key and every other role has its own. */
function rolesSharing(earlier: ServiceKeyVariable, later: ServiceKeyVariable, shared: Ed25519Keypair): RoleKey[] {
  return distinctRoles().map((role) => {
    if (role.variable !== earlier && role.variable !== later) return role;
    return role.variable === "FACILITATOR_EVM_SECRET_KEY"
      ? evmRoleKey(role.variable, evmKeyFromSeed(shared))
      : ed25519RoleKey(role.variable, shared);
  });
}

const PAIRS = SERVICE_KEY_VARIABLES.flatMap((earlier, i) =>
  SERVICE_KEY_VARIABLES.slice(i + 1).map((later) => [earlier, later] as const),
);

describe("refuseSharedKeys()", () => {
  it("accepts every role with a key of its own", () => {
    expect(() => refuseSharedKeys(distinctRoles())).not.toThrow();
  });

  it("knows six roles (the previous log key among them, set during a log key rotation), so fifteen pairs to compare", () => {
    expect(PAIRS).toHaveLength(15);
  });

  it.each(PAIRS)("refuses %s and %s sharing a key, naming both", (earlier, later) => {
    const attempt = () => refuseSharedKeys(rolesSharing(earlier, later, generateKeypair()));
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^${later} must differ from ${earlier}: `));
  });

  it("names the Ed25519 key two roles share, and never the secret bytes", () => {
    const shared = generateKeypair();
    expect(() => refuseSharedKeys(rolesSharing("LOG_SECRET_KEY", "FACILITATOR_SECRET_KEY", shared))).toThrow(
      new ConfigError(
        `FACILITATOR_SECRET_KEY must differ from LOG_SECRET_KEY: both are the key ${shared.publicKeyBase58}; each service role needs a key of its own`,
      ),
    );
    let message = "";
    try {
      refuseSharedKeys(rolesSharing("VERIFIER_SECRET_KEY", "FACILITATOR_EVM_SECRET_KEY", shared));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      "FACILITATOR_EVM_SECRET_KEY must differ from VERIFIER_SECRET_KEY: both hold the same 32 secret bytes; each service role needs a key of its own",
    );
    expect(message).not.toContain(bs58.encode(shared.seed));
    expect(message).not.toContain(bytesToHex(shared.seed).slice(2));
  });

  it("names the later role first whatever order the roles come in", () => {
    const shared = generateKeypair();
    const roles = [
      ed25519RoleKey("FACILITATOR_SECRET_KEY", shared),
      ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", generateKeypair()),
      ed25519RoleKey("VERIFIER_SECRET_KEY", shared),
    ];
    expect(() => refuseSharedKeys(roles)).toThrow(/^FACILITATOR_SECRET_KEY must differ from VERIFIER_SECRET_KEY: /);
  });

  it("accepts fewer roles, and none", () => {
    expect(() => refuseSharedKeys([])).not.toThrow();
    expect(() => refuseSharedKeys(distinctRoles().slice(0, 4))).not.toThrow();
  });

  it("rejects malformed input: a secret or public key not of 32 bytes, an unknown or repeated variable", () => {
    const good = ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", generateKeypair());
    const malformed: RoleKey[] = [
      { ...good, secret: new Uint8Array(31) },
      { ...good, publicKey: new Uint8Array(33) },
      { ...good, secret: "not bytes" as unknown as Uint8Array },
      { ...good, variable: "SESSION_SECRET" as ServiceKeyVariable },
    ];
    for (const role of malformed) {
      expect(() => refuseSharedKeys([role])).toThrow(TypeError);
      expect(() => refuseSharedKeys([role])).not.toThrow(ConfigError);
    }
    expect(() => refuseSharedKeys([good, ed25519RoleKey("SERVICE_OPERATOR_SECRET_KEY", generateKeypair())])).toThrow(
      new TypeError("refuseSharedKeys: SERVICE_OPERATOR_SECRET_KEY is given twice"),
    );
  });
});

describe("ed25519RoleKey()", () => {
  it("carries the keypair's seed and public key under the variable", () => {
    const keypair = generateKeypair();
    expect(ed25519RoleKey("LOG_SECRET_KEY", keypair)).toEqual({
      variable: "LOG_SECRET_KEY",
      secret: keypair.seed,
      publicKey: keypair.publicKey,
    });
  });

  it("rejects malformed input: a seed not of 32 bytes, or a variable that names no role", () => {
    const keypair = generateKeypair();
    expect(() => ed25519RoleKey("LOG_SECRET_KEY", { ...keypair, seed: keypair.seed.slice(0, 16) })).toThrow(TypeError);
    expect(() => ed25519RoleKey("IP_HASH_SALT" as ServiceKeyVariable, keypair)).toThrow(TypeError);
  });
});

describe("evmRoleKey()", () => {
  it("carries the key's 32 bytes and no public key", () => {
    const key = generatePrivateKey();
    const role = evmRoleKey("FACILITATOR_EVM_SECRET_KEY", key);
    expect(bytesToHex(role.secret)).toBe(key);
    expect(role.publicKey).toBeNull();
  });

  it("rejects malformed input: a key that is not 0x and 32 bytes of hex", () => {
    for (const key of ["0x12", "12".repeat(32), `0x${"zz".repeat(32)}`, `0x${"12".repeat(33)}`]) {
      expect(() => evmRoleKey("FACILITATOR_EVM_SECRET_KEY", key as EvmPrivateKey)).toThrow(TypeError);
    }
  });
});
