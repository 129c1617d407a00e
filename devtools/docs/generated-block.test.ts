import { describe, expect, it } from "vitest";
import { cell, replaceGeneratedBlock } from "./generated-block";

describe("replaceGeneratedBlock()", () => {
  const doc = "# Doc\n\nprose\n\n<!-- generated:t:start -->\nold\n<!-- generated:t:end -->\n\nafter\n";

  it("replaces only the text between the block's markers, and is stable when run twice", () => {
    const once = replaceGeneratedBlock(doc, "t", "| new |", "x.ts");
    expect(once).toContain("prose\n\n<!-- generated:t:start -->\n");
    expect(once).toContain("| new |\n\n<!-- generated:t:end -->\n\nafter\n");
    expect(once).toContain("Generated from x.ts");
    expect(once).not.toContain("old");
    expect(replaceGeneratedBlock(once, "t", "| new |", "x.ts")).toBe(once);
  });

  it("rejects malformed input: a missing, repeated or out-of-order marker", () => {
    expect(() => replaceGeneratedBlock("# no markers", "t", "x", "x.ts")).toThrow("needs one");
    expect(() => replaceGeneratedBlock("<!-- generated:t:end -->\n<!-- generated:t:start -->", "t", "x", "x.ts")).toThrow("needs one");
    expect(() => replaceGeneratedBlock(`${doc}<!-- generated:t:start -->`, "t", "x", "x.ts")).toThrow("needs one");
    expect(() => replaceGeneratedBlock(doc, "other", "x", "x.ts")).toThrow("generated:other:start");
  });
});

describe("cell()", () => {
  it("keeps a table cell on one line and escapes its pipes", () => {
    expect(cell("a | b\n  c")).toBe("a \\| b c");
  });
});
