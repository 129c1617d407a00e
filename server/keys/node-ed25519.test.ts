import { ed25519 } from "@noble/curves/ed25519.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyEd25519Noble } from "../verify";
import { signEd25519, verifyEd25519Node } from "./node-ed25519";

// ed25519's group order L: S values at or above it are non-canonical and must be refused by both backends.
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

describe("verifyEd25519Node() and signEd25519()", () => {
  it("signs the same bytes as noble (RFC 8032 is deterministic)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        (seed, message) => {
          expect(Buffer.from(signEd25519(message, seed))).toEqual(Buffer.from(ed25519.sign(message, seed)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("agrees with strict noble on valid, tampered and malformed signatures", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 100 }),
        fc.nat(63),
        fc.integer({ min: 0, max: 255 }),
        (seed, message, at, xor) => {
          const publicKey = ed25519.getPublicKey(seed);
          const signature = ed25519.sign(message, seed);
          const tampered = Uint8Array.from(signature);
          tampered[at]! ^= xor;
          for (const sig of [signature, tampered])
            expect(verifyEd25519Node(sig, message, publicKey)).toBe(verifyEd25519Noble(sig, message, publicKey));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a non-canonical S (S + L) like strict noble, and malformed keys without throwing", () => {
    const seed = new Uint8Array(32).fill(9);
    const message = new Uint8Array([1, 2, 3]);
    const publicKey = ed25519.getPublicKey(seed);
    const signature = ed25519.sign(message, seed);
    let s = 0n;
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(signature[32 + i]!);
    const bumped = s + L;
    const malleable = Uint8Array.from(signature);
    for (let i = 0; i < 32; i++) malleable[32 + i] = Number((bumped >> BigInt(8 * i)) & 0xffn);
    expect(verifyEd25519Noble(malleable, message, publicKey)).toBe(false);
    expect(verifyEd25519Node(malleable, message, publicKey)).toBe(false);
    expect(verifyEd25519Node(signature, message, new Uint8Array(31))).toBe(false);
    expect(verifyEd25519Node(new Uint8Array(10), message, publicKey)).toBe(false);
  });
});
