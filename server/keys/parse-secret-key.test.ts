import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../env";
import { loadOrCreateDevKey, loadSigningKey } from "./load-signing-key";
import { generateKeypair, KeyFormatError, parseSecretKey, toSolanaCliJson } from "./parse-secret-key";

describe("parseSecretKey()", () => {
  const kp = generateKeypair();
  const secret64 = new Uint8Array([...kp.seed, ...kp.publicKey]);

  it("reads a base58 32-byte seed, a base58 64-byte secret key and a Solana CLI JSON array as the same key", () => {
    expect(parseSecretKey(bs58.encode(kp.seed)).publicKeyBase58).toBe(kp.publicKeyBase58);
    expect(parseSecretKey(bs58.encode(secret64)).publicKeyBase58).toBe(kp.publicKeyBase58);
    expect(parseSecretKey(toSolanaCliJson(kp)).publicKeyBase58).toBe(kp.publicKeyBase58);
  });

  it("rejects a 64-byte key whose public half does not match its seed", () => {
    const corrupt = new Uint8Array(secret64);
    corrupt[63] = (corrupt[63]! + 1) % 256;
    expect(() => parseSecretKey(bs58.encode(corrupt))).toThrow(/public half/);
  });

  it.each([["not-base58-0OIl"], ["abc"], ["[1,2,3]"], ["[300]"], ["[not json"], [""]])(
    "rejects malformed input %j without echoing it",
    (text) => {
      const err = (() => {
        try {
          parseSecretKey(text);
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(KeyFormatError);
      if (text.length > 3) expect(err!.message).not.toContain(text);
    },
  );
});

describe("loadSigningKey()", () => {
  it("refuses to start in production without the key, naming the variable", () => {
    expect(() =>
      loadSigningKey({
        envVar: "SERVICE_OPERATOR_SECRET_KEY",
        value: undefined,
        isProduction: true,
        dataDir: "/nonexistent",
        devFile: "k.json",
      }),
    ).toThrow(new ConfigError("SERVICE_OPERATOR_SECRET_KEY is required in production"));
  });

  it("names the variable when its value is malformed", () => {
    expect(() =>
      loadSigningKey({ envVar: "VERIFIER_SECRET_KEY", value: "xyz", isProduction: false, dataDir: "/x", devFile: "k" }),
    ).toThrow(/^VERIFIER_SECRET_KEY is not a valid Ed25519 secret key/);
  });

  it("generates a dev key once into the data dir and reuses it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-keys-"));
    const a = loadSigningKey({ envVar: "X", value: undefined, isProduction: false, dataDir: dir, devFile: "op.json" });
    const b = loadSigningKey({ envVar: "X", value: undefined, isProduction: false, dataDir: dir, devFile: "op.json" });
    expect(a.publicKeyBase58).toBe(b.publicKeyBase58);
    const file = path.join(dir, "op.json");
    expect((JSON.parse(readFileSync(file, "utf8")) as number[]).length).toBe(64);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("prefers the configured key over a dev file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-keys-"));
    const dev = loadOrCreateDevKey(path.join(dir, "op.json"));
    const configured = generateKeypair();
    const loaded = loadSigningKey({
      envVar: "X",
      value: bs58.encode(configured.seed),
      isProduction: false,
      dataDir: dir,
      devFile: "op.json",
    });
    expect(loaded.publicKeyBase58).toBe(configured.publicKeyBase58);
    expect(loaded.publicKeyBase58).not.toBe(dev.publicKeyBase58);
  });
});
