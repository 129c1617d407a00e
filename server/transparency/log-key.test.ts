import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, parseConfig, resetConfigForTests } from "../env";
import { generateKeypair } from "../keys/parse-secret-key";
import { resetServiceKeysForTests } from "../keys/service-keys";
import { formatVerifierKey, parseVerifierKey, SIG_COSIGNATURE_V1, SIG_ED25519 } from "../verify";
import { defaultLogOrigin, logIdentity, parseWitnessKeys, resetLogIdentityForTests } from "./log-key";

const saved = { ...process.env };
function withEnv(env: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfigForTests();
  resetServiceKeysForTests();
  resetLogIdentityForTests();
}
afterEach(() => {
  process.env = { ...saved };
  resetConfigForTests();
  resetServiceKeysForTests();
  resetLogIdentityForTests();
});

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

describe("logIdentity()", () => {
  it("is required in production, and a start-up error names LOG_SECRET_KEY without writing a dev key", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-logkey-"));
    withEnv({ NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example", SIGNET_DATA_DIR: dataDir, SERVICE_OPERATOR_SECRET_KEY: seed(), LOG_SECRET_KEY: undefined, LOG_ORIGIN: undefined });
    expect(() => logIdentity()).toThrow("LOG_SECRET_KEY is required in production");
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("refuses the operator key as the log key", () => {
    const key = seed();
    withEnv({ NODE_ENV: "test", SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-logkey-")), SERVICE_OPERATOR_SECRET_KEY: key, LOG_SECRET_KEY: key });
    expect(() => logIdentity()).toThrow("LOG_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY");
  });

  it("names the log by its origin: LOG_ORIGIN, else SERVICE_BASE_URL's host plus /log", () => {
    withEnv({ NODE_ENV: "test", SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-logkey-")), SERVICE_BASE_URL: "https://signet.example", LOG_SECRET_KEY: seed(), SERVICE_OPERATOR_SECRET_KEY: seed(), LOG_ORIGIN: undefined });
    expect(logIdentity().origin).toBe("signet.example/log");
    expect(logIdentity().verifierKey.startsWith("signet.example/log+")).toBe(true);
    withEnv({ LOG_ORIGIN: "logs.example/receipts" });
    expect(logIdentity().origin).toBe("logs.example/receipts");
    expect(() => parseConfig({ LOG_ORIGIN: "has space" })).toThrow(/LOG_ORIGIN/);
  });
});
