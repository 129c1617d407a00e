import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { bytesToHex } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../env";
import { generateKeypair, parseSecretKey, type Ed25519Keypair } from "../keys/parse-secret-key";
import { SERVICE_KEY_VARIABLES, type ServiceKeyVariable } from "../keys/refuse-shared-keys";
import { LOG_DEV_KEY_FILE } from "../keys/log-key";
import { checkServiceKeys } from "./check-service-keys";

const dataDir = () => mkdtempSync(path.join(tmpdir(), "signet-check-keys-"));
const seed = (keypair: Ed25519Keypair = generateKeypair()) => bs58.encode(keypair.seed);

/**
 * A production environment with a key of its own for every role, the EVM relayer included (a Base RPC is set), and
 * the previous log key of a log key rotation.
 */
function productionEnv(): Record<string, string> {
  return {
    NODE_ENV: "production",
    SERVICE_BASE_URL: "https://signet.example",
    SIGNET_DATA_DIR: dataDir(),
    RPC_URL_BASE_SEPOLIA: "http://127.0.0.1:1",
    SERVICE_OPERATOR_SECRET_KEY: seed(),
    VERIFIER_SECRET_KEY: seed(),
    LOG_SECRET_KEY: seed(),
    // A log key rotation under way: the previous log key co-signs, and is a role of its own.
    LOG_PREVIOUS_SECRET_KEY: seed(),
    FACILITATOR_SECRET_KEY: seed(),
    FACILITATOR_EVM_SECRET_KEY: generatePrivateKey(),
  };
}

/** `shared` written as `variable` takes it: base58 of its seed, or the same 32 bytes as 0x hex for the EVM key. */
const written = (variable: ServiceKeyVariable, shared: Ed25519Keypair) =>
  variable === "FACILITATOR_EVM_SECRET_KEY" ? bytesToHex(shared.seed) : seed(shared);

const check = (env: Record<string, string>) => checkServiceKeys(loadConfig(env));

const PAIRS = SERVICE_KEY_VARIABLES.flatMap((earlier, i) =>
  SERVICE_KEY_VARIABLES.slice(i + 1).map((later) => [earlier, later] as const),
);

/** Dev starts anvils playing Amoy and Fuji too: these tests name Base Sepolia's alone. */
const NO_OTHER_ANVILS = { LOCALNET_POLYGON_AMOY_RPC_PORT: "0", LOCALNET_AVALANCHE_FUJI_RPC_PORT: "0" };

describe("checkServiceKeys()", () => {
  it("accepts a configuration where every role has a key of its own", () => {
    expect(() => check(productionEnv())).not.toThrow();
  });

  it.each(PAIRS)("refuses %s and %s set to one key, naming both", (earlier, later) => {
    const shared = generateKeypair();
    const env = { ...productionEnv(), [earlier]: written(earlier, shared), [later]: written(later, shared) };
    const attempt = () => check(env);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^${later} must differ from ${earlier}: `));
  });

  it("refuses one key written in two forms (a 64-byte Solana secret key and its 32-byte seed)", () => {
    const shared = generateKeypair();
    const env = {
      ...productionEnv(),
      LOG_SECRET_KEY: seed(shared),
      FACILITATOR_SECRET_KEY: bs58.encode(new Uint8Array([...shared.seed, ...shared.publicKey])),
    };
    expect(() => check(env)).toThrow(
      `FACILITATOR_SECRET_KEY must differ from LOG_SECRET_KEY: both are the key ${shared.publicKeyBase58}`,
    );
  });

  it("in development, generates a distinct key per role into the data dir, and accepts them again on the next start", () => {
    const dir = dataDir();
    const env = { NODE_ENV: "development", SIGNET_DATA_DIR: dir, LOCALNET_EVM_RPC_PORT: "8545" };
    expect(() => check(env)).not.toThrow();
    const files = readdirSync(dir).sort();
    expect(files).toEqual([
      "facilitator-evm-key.txt",
      "facilitator-key.json",
      "log-key.json",
      "operator-key.json",
      "verifier-key.json",
    ]);
    const ed25519Keys = files
      .filter((f) => f.endsWith(".json"))
      .map((f) => parseSecretKey(readFileSync(path.join(dir, f), "utf8")).publicKeyBase58);
    expect(new Set(ed25519Keys).size).toBe(4);
    expect(() => check(env)).not.toThrow();
    expect(readdirSync(dir).sort()).toEqual(files);
  });

  it("in development, refuses a configured key that is another role's generated dev key", () => {
    const dir = dataDir();
    const env = { NODE_ENV: "development", SIGNET_DATA_DIR: dir, LOCALNET_EVM_RPC_PORT: "0", ...NO_OTHER_ANVILS };
    check(env);
    const logKey = readFileSync(path.join(dir, LOG_DEV_KEY_FILE), "utf8");
    expect(() => check({ ...env, FACILITATOR_SECRET_KEY: logKey })).toThrow(
      /^FACILITATOR_SECRET_KEY must differ from LOG_SECRET_KEY: /,
    );
  });

  it("leaves the EVM key unread, and so uncompared, when no EVM network has an RPC", () => {
    const dir = dataDir();
    const shared = generateKeypair();
    const env = {
      NODE_ENV: "development",
      SIGNET_DATA_DIR: dir,
      LOCALNET_EVM_RPC_PORT: "0",
      ...NO_OTHER_ANVILS,
      VERIFIER_SECRET_KEY: seed(shared),
      FACILITATOR_EVM_SECRET_KEY: bytesToHex(shared.seed),
    };
    expect(() => check(env)).not.toThrow();
    expect(readdirSync(dir)).not.toContain("facilitator-evm-key.txt");
    expect(() => check({ ...env, LOCALNET_EVM_RPC_PORT: "8545" })).toThrow(
      /^FACILITATOR_EVM_SECRET_KEY must differ from VERIFIER_SECRET_KEY: /,
    );
  });

  it("in production, names the first missing key and writes no dev key", () => {
    const env = productionEnv();
    // The previous log key is set only during a log key rotation.
    for (const variable of SERVICE_KEY_VARIABLES.filter((v) => v !== "LOG_PREVIOUS_SECRET_KEY")) {
      const without: Record<string, string> = { ...env };
      delete without[variable];
      expect(() => check(without)).toThrow(new ConfigError(`${variable} is required in production`));
    }
    expect(readdirSync(env.SIGNET_DATA_DIR!)).toEqual([]);
  });

  it.each(
    SERVICE_KEY_VARIABLES.filter((v) => v !== "FACILITATOR_EVM_SECRET_KEY" && v !== "SERVICE_OPERATOR_SECRET_KEY"),
  )("refuses %s holding one of the operator's retired keys", (variable) => {
    const retired = generateKeypair();
    const env = {
      ...productionEnv(),
      [variable]: seed(retired),
      SERVICE_OPERATOR_RETIRED_KEYS: `${retired.publicKeyBase58}@2026-05-01T00:00:00Z`,
    };
    expect(() => check(env)).toThrow(
      new ConfigError(
        `${variable} must differ from every key in SERVICE_OPERATOR_RETIRED_KEYS: both hold the key ${retired.publicKeyBase58}`,
      ),
    );
  });

  it("accepts retired operator keys that no role holds, and refuses the current one among them", () => {
    const base = productionEnv();
    const env = { ...base, SERVICE_OPERATOR_RETIRED_KEYS: `${generateKeypair().publicKeyBase58}@2026-05-01T00:00:00Z` };
    expect(() => check(env)).not.toThrow();
    const current = parseSecretKey(base.SERVICE_OPERATOR_SECRET_KEY!).publicKeyBase58;
    expect(() => check({ ...env, SERVICE_OPERATOR_RETIRED_KEYS: `${current}@2026-05-01T00:00:00Z` })).toThrow(
      /^SERVICE_OPERATOR_RETIRED_KEYS lists the current operator key/,
    );
  });

  it("rejects malformed input: an unreadable key is named by its variable", () => {
    expect(() => check({ ...productionEnv(), LOG_SECRET_KEY: "not-a-key" })).toThrow(
      /^LOG_SECRET_KEY is not a valid Ed25519 secret key/,
    );
    expect(() => check({ ...productionEnv(), LOG_PREVIOUS_SECRET_KEY: "not-a-key" })).toThrow(
      /^LOG_PREVIOUS_SECRET_KEY is not a valid Ed25519 secret key/,
    );
    expect(() =>
      check({ ...productionEnv(), SERVICE_OPERATOR_RETIRED_KEYS: "not-a-key@2026-05-01T00:00:00Z" }),
    ).toThrow(/^SERVICE_OPERATOR_RETIRED_KEYS: entry 1/);
    expect(() => check({ ...productionEnv(), FACILITATOR_SECRET_KEY: "[1,2,3]" })).toThrow(
      /^FACILITATOR_SECRET_KEY is not a valid Ed25519 secret key/,
    );
    expect(() => check({ ...productionEnv(), FACILITATOR_EVM_SECRET_KEY: "0x12" })).toThrow(
      /^FACILITATOR_EVM_SECRET_KEY is not a valid EVM private key/,
    );
  });
});
