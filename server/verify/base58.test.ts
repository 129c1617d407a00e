import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { decodeBase58Bytes } from "./base58";

describe("decodeBase58Bytes()", () => {
  it("decodes what bs58 encodes: random lengths, leading zero bytes, all zeros, all 0xff", () => {
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      new Uint8Array(32),
      new Uint8Array(64).fill(0xff),
      Uint8Array.of(0, 0, 1),
      Uint8Array.of(255),
    ];
    for (let i = 0; i < 2_000; i++) {
      const bytes = randomBytes(1 + (i % 80));
      bytes.fill(0, 0, i % 5); // some leading zero bytes
      cases.push(bytes);
    }
    for (const bytes of cases) expect(decodeBase58Bytes(bs58.encode(bytes))).toEqual(Uint8Array.from(bytes));
  });

  it("rejects malformed input as bs58 does: 0, O, I, l, non-ASCII and punctuation are outside the alphabet", () => {
    for (const bad of ["0", "O", "I", "l", "abc0", "é", "11+1", " 1", "z\u0000"]) {
      expect(decodeBase58Bytes(bad)).toBeNull();
      expect(() => bs58.decode(bad)).toThrow();
    }
  });

  it("agrees with bs58 on random strings of the alphabet, including leading 1s", () => {
    const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    for (let i = 0; i < 2_000; i++) {
      const n = 1 + (i % 100);
      let text = "1".repeat(i % 4);
      for (let k = 0; k < n; k++) text += alphabet[randomBytes(1)[0]! % 58];
      expect(decodeBase58Bytes(text)).toEqual(Uint8Array.from(bs58.decode(text)));
    }
  });
});

describe("decodeBase58() of keys", () => {
  it("hands out a fresh copy of a remembered key: changing one never changes the next", async () => {
    const { decodeBase58 } = await import("./ed25519");
    const text = bs58.encode(randomBytes(32));
    const first = decodeBase58(text, 32)!;
    first.fill(0);
    expect(decodeBase58(text, 32)).toEqual(Uint8Array.from(bs58.decode(text)));
    expect(decodeBase58(text, 64)).toBeNull();
    expect(decodeBase58(`${text}0`, 32)).toBeNull();
  });
});
