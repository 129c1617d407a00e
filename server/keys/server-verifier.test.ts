import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../verify";
import { sha256HexNode } from "./server-verifier";

describe("sha256HexNode()", () => {
  it("gives noble's digest for any text: ASCII, multi-byte, emoji, lone surrogates, empty", () => {
    const texts = ["", "bench", "é", "日本語", "🙂🙃", "\ud800", "a\udc00b", "x".repeat(10_000)];
    for (let i = 0; i < 500; i++)
      texts.push(String.fromCharCode(...Array.from(randomBytes(1 + (i % 60)), (b, k) => (b << 8) | (k * 37 + i))));
    for (const text of texts) expect(sha256HexNode(text)).toBe(sha256Hex(text));
  });
});
