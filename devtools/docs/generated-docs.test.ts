import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../../server/errors";
import { GENERATED_DOCS } from "./generated-docs";

describe("the generated docs", () => {
  it.each(Object.entries(GENERATED_DOCS))("%s is what `npm run docs` writes from the code", (file, render) => {
    expect(readFileSync(file, "utf8"), `${file} is stale: run npm run docs`).toBe(render());
  });

  it("covers every generated file under docs/: each one with a generated part is listed", () => {
    const generated = readdirSync("docs")
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`)
      .filter((f) => /<!-- (Generated from|generated:)/.test(readFileSync(f, "utf8")));
    expect(generated.sort()).toEqual(Object.keys(GENERATED_DOCS).sort());
  });

  it("docs/errors.md names every answered code and no retired one", () => {
    const text = readFileSync("docs/errors.md", "utf8");
    for (const [code, row] of Object.entries(ERRORS)) {
      const inTable = text.includes(`| \`${code}\` |`);
      expect(inTable, code).toBe(!("retired" in row && row.retired));
    }
  });
});
