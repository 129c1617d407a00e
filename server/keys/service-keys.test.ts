import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../env";
import { decodeBase58 } from "../verify";
import { tempDataDir } from "../test/support/env";
import { createLogger } from "../log";
import { operatorKeyResource } from "./operator-key-resource";
import { generateKeypair, type Ed25519Keypair } from "./parse-secret-key";
import { createServiceKeys } from "./service-keys";

const seed = (keypair: Ed25519Keypair) => bs58.encode(keypair.seed);
const current = generateKeypair();
const old = generateKeypair();
const older = generateKeypair();
const RETIRED = `${old.publicKeyBase58}@2026-05-01T00:00:00Z,${older.publicKeyBase58}@1767225600000`;

/** The keys of a test environment with the operator key `current` and `vars` over it. */
const keysOf = (vars: Record<string, string>) =>
  createServiceKeys(
    loadConfig({
      NODE_ENV: "test",
      SIGNET_DATA_DIR: tempDataDir(),
      SERVICE_OPERATOR_SECRET_KEY: seed(current),
      ...vars,
    }),
  );

describe("ServiceKeys.operatorKeys()", () => {
  it("is the current key and the retired ones SERVICE_OPERATOR_RETIRED_KEYS names, as the resource publishes them", () => {
    const keys = keysOf({ SERVICE_OPERATOR_RETIRED_KEYS: RETIRED });
    const retired = [
      { pubkey: old.publicKeyBase58, retired_at: 1_777_593_600_000 },
      { pubkey: older.publicKeyBase58, retired_at: 1_767_225_600_000 },
    ];
    expect(keys.operatorKeys()).toEqual({ pubkey: current.publicKeyBase58, retired });
    expect(operatorKeyResource({ keys, log: createLogger("silent") })).toEqual({
      pubkey: current.publicKeyBase58,
      algorithm: "ed25519",
      encoding: "base58",
      retired,
    });
  });

  it("is the current key alone when none was retired, and the resource keeps its old fields", () => {
    expect(operatorKeyResource({ keys: keysOf({}), log: createLogger("silent") })).toEqual({
      pubkey: current.publicKeyBase58,
      algorithm: "ed25519",
      encoding: "base58",
      retired: [],
    });
  });

  it("refuses the current key listed as retired, at the operator key's load", () => {
    const keys = keysOf({ SERVICE_OPERATOR_RETIRED_KEYS: `${current.publicKeyBase58}@2026-05-01T00:00:00Z` });
    expect(() => keys.operator()).toThrow(ConfigError);
    expect(() => keys.operator()).toThrow(
      /^SERVICE_OPERATOR_RETIRED_KEYS lists the current operator key .* \(SERVICE_OPERATOR_SECRET_KEY\)/,
    );
  });

  it("refuses a retired key whose per-key id (its first 8 characters) is the current key's", () => {
    const twin = decodeBase58(current.publicKeyBase58, 32)!;
    twin[31] = twin[31]! ^ 1;
    const lookalike = bs58.encode(twin);
    expect(lookalike.slice(0, 8)).toBe(current.publicKeyBase58.slice(0, 8));
    expect(() => keysOf({ SERVICE_OPERATOR_RETIRED_KEYS: `${lookalike}@2026-05-01T00:00:00Z` }).operator()).toThrow(
      `SERVICE_OPERATOR_RETIRED_KEYS: ${lookalike} and ${current.publicKeyBase58} share the key id #operator-key-${current.publicKeyBase58.slice(0, 8)}: make the new operator key again`,
    );
  });

  it("rejects malformed input: a malformed list stops the operator key's load, naming the variable", () => {
    expect(() => keysOf({ SERVICE_OPERATOR_RETIRED_KEYS: "nope" }).operator()).toThrow(
      /^SERVICE_OPERATOR_RETIRED_KEYS: entry 1/,
    );
  });

  it("refuses a retired operator key as the verifier key or the log key", () => {
    expect(() => keysOf({ SERVICE_OPERATOR_RETIRED_KEYS: RETIRED, VERIFIER_SECRET_KEY: seed(old) }).verifier()).toThrow(
      `VERIFIER_SECRET_KEY must differ from every key in SERVICE_OPERATOR_RETIRED_KEYS: both hold the key ${old.publicKeyBase58}`,
    );
    expect(() => keysOf({ SERVICE_OPERATOR_RETIRED_KEYS: RETIRED, LOG_SECRET_KEY: seed(older) }).log()).toThrow(
      /^LOG_SECRET_KEY must differ from every key in SERVICE_OPERATOR_RETIRED_KEYS/,
    );
    expect(() =>
      keysOf({
        SERVICE_OPERATOR_RETIRED_KEYS: RETIRED,
        LOG_SECRET_KEY: seed(generateKeypair()),
        LOG_PREVIOUS_SECRET_KEY: seed(old),
      }).log(),
    ).toThrow(/^LOG_PREVIOUS_SECRET_KEY must differ from every key in SERVICE_OPERATOR_RETIRED_KEYS/);
  });
});
