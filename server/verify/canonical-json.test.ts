import { describe, expect, it } from "vitest";
import { canonicalJson, CanonicalJsonError } from "./canonical-json";

describe("canonicalJson()", () => {
  it("sorts keys recursively and writes no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("orders keys by UTF-16 code unit, not by code point or locale", () => {
    // U+FF5E (one unit 0xFF5E) sorts after U+1F600 (surrogates 0xD83D 0xDE00) in UTF-16 order, before it by code point.
    const value = { "\uff5e": 1, "😀": 2, Z: 3, a: 4, é: 5 };
    expect(canonicalJson(value)).toBe('{"Z":3,"a":4,"é":5,"😀":2,"～":1}');
  });

  it("writes primitives exactly as JSON.stringify does", () => {
    expect(canonicalJson([1e-7, 0.000045, 1e21, -0, 0.1, true, "x"])).toBe('[1e-7,0.000045,1e+21,0,0.1,true,"x"]');
  });

  it("escapes quotes, backslashes, control characters, and keeps emoji and U+2028 as JSON.stringify does", () => {
    const s = 'say "hi" \\ \n\t \u2028 \u0001 😀';
    expect(canonicalJson({ s })).toBe(`{"s":${JSON.stringify(s)}}`);
  });

  it("keeps array order", () => {
    expect(canonicalJson([3, 1, 2])).toBe("[3,1,2]");
  });

  it.each([
    ["undefined", undefined],
    ["a function", () => 1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a bigint", 1n],
    ["a symbol", Symbol("s")],
    ["an undefined property", { a: undefined }],
    ["an undefined array item", [1, undefined]],
    ["a Date", new Date(0)],
    ["a Map", new Map()],
  ])("rejects %s", (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
  });

  it("rejects cycles but accepts repeated (acyclic) references", () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cyclic/);
  });

  it("names the path of the offending value", () => {
    expect(() => canonicalJson({ a: [{ b: Number.NaN }] })).toThrow(/a\[0\]\.b/);
  });
});
