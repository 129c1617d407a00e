import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wellFormed, wellFormedJson, wellFormedPieces } from "./well-formed-text";

const isWellFormed = (s: string) => s.isWellFormed();

describe("wellFormed()", () => {
  it("replaces each lone surrogate with U+FFFD and keeps every other code point", () => {
    expect(wellFormed("a\ud800b")).toBe("a\ufffdb");
    expect(wellFormed("\udc00")).toBe("\ufffd");
    expect(wellFormed("\ud83d\ude00")).toBe("\ud83d\ude00");
    expect(wellFormed("x\u0000y\u2028\u2029\ufeff")).toBe("x\u0000y\u2028\u2029\ufeff");
    expect(wellFormed("\\ud800")).toBe("\\ud800");
  });

  it("gives text whose UTF-8 bytes decode back to itself", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = wellFormed(s);
        expect(new TextDecoder().decode(new TextEncoder().encode(out))).toBe(out);
        expect(out.length).toBe(s.length);
      }),
    );
  });
});

describe("wellFormedJson()", () => {
  it("well-forms every string of a parsed value, keys included, and leaves the rest", () => {
    expect(wellFormedJson({ "k\ud800": ["\udc00", 1, null, true, { a: "\ud83d\ude00" }] })).toEqual({
      "k\ufffd": ["\ufffd", 1, null, true, { a: "\ud83d\ude00" }],
    });
  });
});

describe("wellFormedPieces()", () => {
  it("joins a surrogate pair split across two pieces of a run", () => {
    const pieces = wellFormedPieces();
    expect(pieces.push("content", "smile \ud83d")).toBe("smile ");
    expect(pieces.push("tool:0", "\ud83d")).toBe("");
    expect(pieces.push("content", "\ude00!")).toBe("\ud83d\ude00!");
    expect(pieces.flush("content")).toBe("");
    expect(pieces.flush("tool:0")).toBe("\ufffd");
  });

  it("sends, over any split, the text wellFormed gives for the whole", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { maxLength: 8 }), (parts) => {
        const pieces = wellFormedPieces();
        const sent = parts.map((p) => pieces.push("content", p));
        sent.push(pieces.flush("content"));
        expect(sent.join("")).toBe(wellFormed(parts.join("")));
        for (const s of sent) expect(isWellFormed(s)).toBe(true);
      }),
    );
  });
});
