import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../env";
import { generateKeypair, toSolanaCliJson } from "../keys/parse-secret-key";
import { OPERATOR_DEV_KEY_FILE } from "../keys/service-keys";
import { createFacilitator, FACILITATOR_DEV_KEY_FILE, loadFeePayerKey } from "./create-facilitator";

const production = (env: Record<string, string>) =>
  loadConfig({
    NODE_ENV: "production",
    SERVICE_BASE_URL: "https://signet.example",
    SIGNET_DATA_DIR: "/nonexistent-signet-data",
    RPC_URL_SOLANA_DEVNET: "http://127.0.0.1:1",
    ...env,
  });

describe("createFacilitator() and the operator's keys", () => {
  it("refuses a fee-payer key that is the receipt-signing key, written in either form", async () => {
    const kp = generateKeypair();
    const seed = bs58.encode(kp.seed);
    const secret = bs58.encode(new Uint8Array([...kp.seed, ...kp.publicKey]));
    for (const [facilitator, operator] of [
      [seed, seed],
      [seed, secret],
    ]) {
      const attempt = createFacilitator(
        production({ FACILITATOR_SECRET_KEY: facilitator!, SERVICE_OPERATOR_SECRET_KEY: operator! }),
      );
      await expect(attempt).rejects.toBeInstanceOf(ConfigError);
      await expect(attempt).rejects.toThrow(
        `FACILITATOR_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY: both are the key ${kp.publicKeyBase58}`,
      );
    }
  });

  it("refuses a fee-payer key listed among the dashboard's operators", async () => {
    const kp = generateKeypair();
    const others = generateKeypair().publicKeyBase58;
    const cfg = production({
      FACILITATOR_SECRET_KEY: bs58.encode(kp.seed),
      SERVICE_OPERATOR_SECRET_KEY: bs58.encode(generateKeypair().seed),
      SERVICE_OPERATOR_PUBKEYS: `${others}, ${kp.publicKeyBase58}`,
    });
    await expect(createFacilitator(cfg)).rejects.toThrow(
      new ConfigError(
        `SERVICE_OPERATOR_PUBKEYS must not list the facilitator's fee-payer key ${kp.publicKeyBase58}: the dashboard's operators sign in with keys of their own`,
      ),
    );
  });

  it("refuses, in development, a fee-payer key that is the generated operator key", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-keys-"));
    const kp = generateKeypair();
    writeFileSync(path.join(dataDir, OPERATOR_DEV_KEY_FILE), toSolanaCliJson(kp));
    const cfg = loadConfig({
      NODE_ENV: "development",
      SIGNET_DATA_DIR: dataDir,
      FACILITATOR_SECRET_KEY: bs58.encode(kp.seed),
      LOCALNET_EVM_RPC_PORT: "0",
      LOCALNET_POLYGON_AMOY_RPC_PORT: "0",
      LOCALNET_AVALANCHE_FUJI_RPC_PORT: "0",
    });
    await expect(createFacilitator(cfg)).rejects.toThrow(
      /FACILITATOR_SECRET_KEY must differ from SERVICE_OPERATOR_SECRET_KEY/,
    );
  });

  it("rejects malformed input: an unreadable operator key is named", async () => {
    const cfg = production({
      FACILITATOR_SECRET_KEY: bs58.encode(generateKeypair().seed),
      SERVICE_OPERATOR_SECRET_KEY: "not-a-key",
    });
    await expect(createFacilitator(cfg)).rejects.toThrow(
      /SERVICE_OPERATOR_SECRET_KEY is not a valid Ed25519 secret key/,
    );
  });

  it("builds with keys of their own, and leaves production without an operator key to its own start-up check", async () => {
    const kp = generateKeypair();
    const operators = `${generateKeypair().publicKeyBase58},${generateKeypair().publicKeyBase58}`;
    const apart = production({
      FACILITATOR_SECRET_KEY: bs58.encode(kp.seed),
      SERVICE_OPERATOR_SECRET_KEY: bs58.encode(generateKeypair().seed),
      SERVICE_OPERATOR_PUBKEYS: operators,
    });
    expect((await createFacilitator(apart)).address).toBe(kp.publicKeyBase58);
    expect((await createFacilitator(production({ FACILITATOR_SECRET_KEY: bs58.encode(kp.seed) }))).address).toBe(
      kp.publicKeyBase58,
    );
  });
});

describe("loadFeePayerKey()", () => {
  it("is the configured key, in either form", () => {
    const kp = generateKeypair();
    expect(loadFeePayerKey(production({ FACILITATOR_SECRET_KEY: bs58.encode(kp.seed) })).publicKeyBase58).toBe(
      kp.publicKeyBase58,
    );
    expect(loadFeePayerKey(production({ FACILITATOR_SECRET_KEY: toSolanaCliJson(kp) })).publicKeyBase58).toBe(
      kp.publicKeyBase58,
    );
  });

  it("in development, generates its own key file into the data dir once and keeps it", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-keys-"));
    const cfg = loadConfig({ NODE_ENV: "development", SIGNET_DATA_DIR: dataDir });
    const first = loadFeePayerKey(cfg);
    expect(readdirSync(dataDir)).toEqual([FACILITATOR_DEV_KEY_FILE]);
    expect(loadFeePayerKey(cfg).publicKeyBase58).toBe(first.publicKeyBase58);
  });

  it("rejects malformed input: an unreadable key is named, and production without one names the variable", () => {
    expect(() => loadFeePayerKey(production({ FACILITATOR_SECRET_KEY: "not-a-key" }))).toThrow(
      /^FACILITATOR_SECRET_KEY is not a valid Ed25519 secret key/,
    );
    expect(() => loadFeePayerKey(production({}))).toThrow(
      new ConfigError("FACILITATOR_SECRET_KEY is required in production"),
    );
  });
});
