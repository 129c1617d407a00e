// Both vector sets are complete: every folder holds the files its kind needs and nothing unknown, so a vector that lost
// a file fails here by name instead of being skipped or read as undefined.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const PUBLIC_DIR = path.join(__dirname, "sir-v2");
const GENERATED_DIR = path.join(__dirname, "signet-generated");
const PUBLIC_FILES = ["expected.json", "operator-pubkey.txt", "receipt.json", "request.json", "response.json"];

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

const filesIn = (dir: string) => readdirSync(dir).sort();

/** The files a generated vector must have: the public five (receipt.txt for parse vectors) plus its kind's extras. */
function generatedFilesFor(dir: string): string[] {
  const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as { kind?: unknown };
  const receipt = expected.kind === "parse" ? "receipt.txt" : "receipt.json";
  const files = ["expected.json", "operator-pubkey.txt", receipt, "request.json", "response.json"];
  if (expected.kind === "verdict") files.push("verdict.json", "verifier-pubkey.txt");
  if (existsSync(path.join(dir, "recorded-http.json"))) files.push("recorded-http.json");
  return files.sort();
}

describe("vendored public vectors (sir-v2)", () => {
  it("has a README naming where the copy came from, and at least one vector", () => {
    const readme = readFileSync(path.join(PUBLIC_DIR, "README.md"), "utf8");
    for (const fact of ["`conformance/sir-v2`", "2026-11-23", "unchanged"]) expect(readme).toContain(fact);
    expect(folders(PUBLIC_DIR).length).toBeGreaterThan(0);
  });

  it.each(folders(PUBLIC_DIR))("%s has exactly the five vector files", (name) => {
    expect(filesIn(path.join(PUBLIC_DIR, name))).toEqual(PUBLIC_FILES);
  });
});

describe("generated vectors (signet-generated)", () => {
  it("has at least one vector", () => {
    expect(folders(GENERATED_DIR).length).toBeGreaterThan(0);
  });

  it.each(folders(GENERATED_DIR))("%s has exactly the files its kind needs", (name) => {
    const dir = path.join(GENERATED_DIR, name);
    expect(existsSync(path.join(dir, "expected.json")), `${name} lacks expected.json`).toBe(true);
    expect(filesIn(dir)).toEqual(generatedFilesFor(dir));
  });
});
