import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../env";
import { generateKeypair } from "./parse-secret-key";
import { createServiceKeys } from "./service-keys";
import { formatVerifierKey, parseVerifierKey, SIG_COSIGNATURE_V1, SIG_ED25519 } from "../verify";
import { defaultLogOrigin, parseWitnessKeys } from "./log-key";

/** The log identity of a runtime whose environment is `env`. */
const logIdentityOf = (env: Record<string, string | undefined>) => createServiceKeys(loadConfig(env)).log();

const seed = () => bs58.encode(generateKeypair().seed);

describe("defaultLogOrigin()", () => {
  it("is the public base URL without its scheme, plus /log", () => {
    expect(defaultLogOrigin("https://signet.example.com")).toBe("signet.example.com/log");
    expect(defaultLogOrigin("http://localhost:3000/")).toBe("localhost:3000/log");
    expect(defaultLogOrigin("https://example.com/signet/")).toBe("example.com/signet/log");
  });
});

describe("parseWitnessKeys()", () => {
  it("reads comma-separated cosignature keys and rejects anything else, naming the variable", () => {
    const w = formatVerifierKey("w.example/1", generateKeypair().publicKey, SIG_COSIGNATURE_V1);
    expect(parseWitnessKeys(` ${w} ,`)).toEqual([parseVerifierKey(w)]);
    expect(parseWitnessKeys("")).toEqual([]);
    const ed = formatVerifierKey("w.example/1", generateKeypair().publicKey, SIG_ED25519);
    expect(() => parseWitnessKeys(ed)).toThrow(ConfigError);
    expect(() => parseWitnessKeys("junk")).toThrow(/LOG_WITNESS_KEYS/);
  });
});

describe("ServiceKeys.log()", () => {
  it("is required in production, and a start-up error names LOG_SECRET_KEY without writing a dev key", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-logkey-"));
    const env = {
      NODE_ENV: "production",
      SERVICE_BASE_URL: "https://signet.example",
      SIGNET_DATA_DIR: dataDir,
      SERVICE_OPERATOR_SECRET_KEY: seed(),
    };
    expect(() => logIdentityOf(env)).toThrow("LOG_SECRET_KEY is required in production");
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("refuses the operator key as the log key", () => {
    const key = seed();
    const env = {
      NODE_ENV: "test",
      SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-logkey-")),
      SERVICE_OPERATOR_SECRET_KEY: key,
      LOG_SECRET_KEY: key,
    };
    expect(() => logIdentityOf(env)).toThrow("LOG_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY");
  });

  it("names the log by its origin: LOG_ORIGIN, else SERVICE_BASE_URL's host plus /log", () => {
    const env = {
      NODE_ENV: "test",
      SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-logkey-")),
      SERVICE_BASE_URL: "https://signet.example",
      LOG_SECRET_KEY: seed(),
      SERVICE_OPERATOR_SECRET_KEY: seed(),
    };
    const identity = logIdentityOf(env);
    expect(identity.origin).toBe("signet.example/log");
    expect(identity.verifierKey.startsWith("signet.example/log+")).toBe(true);
    expect(logIdentityOf({ ...env, LOG_ORIGIN: "logs.example/receipts" }).origin).toBe("logs.example/receipts");
    expect(() => loadConfig({ LOG_ORIGIN: "has space" })).toThrow(/LOG_ORIGIN/);
  });
});

describe("ServiceKeys.log() during a log key rotation", () => {
  const env = () => ({
    NODE_ENV: "test",
    SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-logkey-")),
    SERVICE_BASE_URL: "https://signet.example",
    SERVICE_OPERATOR_SECRET_KEY: seed(),
  });

  it("has no previous key unless LOG_PREVIOUS_SECRET_KEY is set; then both sign under the one origin", () => {
    expect(logIdentityOf({ ...env(), LOG_SECRET_KEY: seed() }).previous).toBeNull();
    const previous = generateKeypair();
    const identity = logIdentityOf({
      ...env(),
      LOG_SECRET_KEY: seed(),
      LOG_PREVIOUS_SECRET_KEY: bs58.encode(previous.seed),
    });
    expect(identity.previous?.verifierKey).toBe(formatVerifierKey("signet.example/log", previous.publicKey));
    expect(identity.previous?.keyId).toBe(parseVerifierKey(identity.previous!.verifierKey)!.keyId);
    expect(identity.previous?.keyId).not.toBe(identity.keyId);
  });

  it("refuses the log key itself, or the operator key, as the previous key", () => {
    const key = seed();
    expect(() => logIdentityOf({ ...env(), LOG_SECRET_KEY: key, LOG_PREVIOUS_SECRET_KEY: key })).toThrow(
      /^LOG_PREVIOUS_SECRET_KEY must differ from LOG_SECRET_KEY/,
    );
    const withOperator = env();
    expect(() =>
      logIdentityOf({
        ...withOperator,
        LOG_SECRET_KEY: seed(),
        LOG_PREVIOUS_SECRET_KEY: withOperator.SERVICE_OPERATOR_SECRET_KEY,
      }),
    ).toThrow(/^LOG_PREVIOUS_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY/);
  });

  it("rejects malformed input: an unreadable previous key names its variable", () => {
    expect(() => logIdentityOf({ ...env(), LOG_SECRET_KEY: seed(), LOG_PREVIOUS_SECRET_KEY: "not-a-key" })).toThrow(
      /^LOG_PREVIOUS_SECRET_KEY is not a valid Ed25519 secret key/,
    );
  });
});
