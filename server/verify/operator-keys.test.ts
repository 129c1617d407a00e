import { describe, expect, it } from "vitest";
import { generateKeypair } from "../keys/parse-secret-key";
import { signDetached } from "../receipts/sign-receipt";
import { verifyEd25519Noble } from "./ed25519";
import { checkOperatorSignature, formatUnixMs, parseOperatorKeys } from "./operator-keys";

const current = generateKeypair();
const retired = generateKeypair();
const RETIRED_AT = 1_777_593_600_000;
const keys = {
  pubkey: current.publicKeyBase58,
  retired: [{ pubkey: retired.publicKeyBase58, retired_at: RETIRED_AT }],
};
const message = new TextEncoder().encode('{"v":2}');

describe("parseOperatorKeys()", () => {
  it("reads the resource's current key and retired keys, ignoring its other fields", () => {
    const body = {
      pubkey: current.publicKeyBase58,
      algorithm: "ed25519",
      encoding: "base58",
      retired: [{ pubkey: retired.publicKeyBase58, retired_at: RETIRED_AT, note: "x" }],
    };
    expect(parseOperatorKeys(body)).toEqual(keys);
  });

  it("reads a resource from before key rotation (no `retired`) as no retired key", () => {
    expect(parseOperatorKeys({ pubkey: current.publicKeyBase58, algorithm: "ed25519", encoding: "base58" })).toEqual({
      pubkey: current.publicKeyBase58,
      retired: [],
    });
  });

  it.each([
    ["not an object", "key"],
    ["an array", [current.publicKeyBase58]],
    ["no pubkey", { retired: [] }],
    ["a pubkey that is not 32 bytes of base58", { pubkey: "abc", retired: [] }],
    ["retired not a list", { pubkey: current.publicKeyBase58, retired: {} }],
    ["a retired entry that is not an object", { pubkey: current.publicKeyBase58, retired: [null] }],
    [
      "a retired key that is not base58",
      { pubkey: current.publicKeyBase58, retired: [{ pubkey: "0OIl", retired_at: 1 }] },
    ],
    [
      "a retirement in ISO text",
      {
        pubkey: current.publicKeyBase58,
        retired: [{ pubkey: retired.publicKeyBase58, retired_at: "2026-05-01T00:00:00Z" }],
      },
    ],
    [
      "a fractional retirement",
      { pubkey: current.publicKeyBase58, retired: [{ pubkey: retired.publicKeyBase58, retired_at: 1.5 }] },
    ],
    [
      "a negative retirement",
      { pubkey: current.publicKeyBase58, retired: [{ pubkey: retired.publicKeyBase58, retired_at: -1 }] },
    ],
    [
      "the current key listed as retired",
      { pubkey: current.publicKeyBase58, retired: [{ pubkey: current.publicKeyBase58, retired_at: 1 }] },
    ],
    [
      "a key retired twice",
      {
        pubkey: current.publicKeyBase58,
        retired: [
          { pubkey: retired.publicKeyBase58, retired_at: 1 },
          { pubkey: retired.publicKeyBase58, retired_at: 2 },
        ],
      },
    ],
  ])("rejects malformed input: %s", (_label, body) => {
    expect(parseOperatorKeys(body)).toBeNull();
  });
});

describe("checkOperatorSignature()", () => {
  const byCurrent = signDetached(message, current);
  const byRetired = signDetached(message, retired);
  const check = (signature: unknown, timestamp: unknown) =>
    checkOperatorSignature(verifyEd25519Noble, message, signature, keys, timestamp);

  it("accepts the current key whatever the timestamp", () => {
    for (const timestamp of [RETIRED_AT - 1, RETIRED_AT + 1, undefined])
      expect(check(byCurrent, timestamp)).toEqual({ ok: true, pubkey: current.publicKeyBase58, retiredAt: null });
  });

  it("accepts a retired key for a receipt timestamped before its retirement", () => {
    expect(check(byRetired, RETIRED_AT - 1)).toEqual({
      ok: true,
      pubkey: retired.publicKeyBase58,
      retiredAt: RETIRED_AT,
    });
  });

  it("refuses a retired key at and after its retirement", () => {
    for (const timestamp of [RETIRED_AT, RETIRED_AT + 1])
      expect(check(byRetired, timestamp)).toEqual({
        ok: false,
        reason: "signed_after_retirement",
        pubkey: retired.publicKeyBase58,
        retiredAt: RETIRED_AT,
      });
  });

  it.each([[undefined], ["1777593599999"], [RETIRED_AT - 0.5], [-1], [Number.MAX_SAFE_INTEGER + 2]])(
    "refuses a retired key for a receipt without a whole, non-negative ms timestamp: %j",
    (timestamp) => {
      expect(check(byRetired, timestamp)).toEqual({
        ok: false,
        reason: "timestamp_missing",
        pubkey: retired.publicKeyBase58,
        retiredAt: RETIRED_AT,
      });
    },
  );

  it("refuses a signature by any other key, or over other bytes, naming the current key", () => {
    expect(check(signDetached(message, generateKeypair()), RETIRED_AT - 1)).toEqual({
      ok: false,
      reason: "signature_invalid",
      pubkey: current.publicKeyBase58,
      retiredAt: null,
    });
    expect(
      checkOperatorSignature(verifyEd25519Noble, new TextEncoder().encode("{}"), byRetired, keys, RETIRED_AT - 1).ok,
    ).toBe(false);
  });

  it("rejects malformed input: a signature that is not base58 of 64 bytes", () => {
    for (const signature of [undefined, 42, "", "0OIl"])
      expect(check(signature, RETIRED_AT - 1)).toMatchObject({ ok: false, reason: "signature_invalid" });
  });
});

describe("formatUnixMs()", () => {
  it("writes ISO 8601 UTC, and the number beyond what a Date holds", () => {
    expect(formatUnixMs(1_763_000_040_500)).toBe("2025-11-13T02:14:00.500Z");
    expect(formatUnixMs(9e15)).toBe("9000000000000000 ms");
  });
});
