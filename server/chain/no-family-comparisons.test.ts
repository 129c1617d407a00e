// Chain-family behaviour lives in server/chain's adapters and server/verify/chain-family-facts.ts alone: the lint rule
// of eslint.config.mjs (familyBranches) is run against code that breaks it, as if the code sat at a path it covers,
// and the source tree is scanned for a comparison that slipped past it (a file outside the lint's globs, a disable).
import { readFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../../devtools/layers/import-graph";

const ROOT = path.resolve(import.meta.dirname, "../..");
const config = (await import(/* @vite-ignore */ path.join(ROOT, "eslint.config.mjs"))) as {
  WITHOUT_TYPES: ESLint.Options["overrideConfig"];
};
// The probes sit at invented paths (in no TypeScript project) and the family rule reads no types.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: config.WITHOUT_TYPES });

/** The family rule's messages ESLint reports for `code` as the file `filePath`. */
async function familyBranches(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages
    .filter((m) => m.ruleId === "no-restricted-syntax" && m.message.includes("chain family"))
    .map((m) => m.message);
}

const BRANCHES = [
  'export const probe = (row: { family: string }) => row.family === "svm";',
  'export const probe = (row: { family: string }) => "evm" !== row.family;',
  'export const probe = (row?: { family: string }) => row?.family !== "svm";',
  "export const probe = (a: { family: string }, b: { family: string }) => a.family == b.family;",
  'export const probe = (family: string) => family === "evm";',
  "export function probe(row: { family: string }) {\n  switch (row.family) {\n    default:\n      return 1;\n  }\n}",
  'export function probe(f: string) {\n  switch (f) {\n    case "evm":\n      return 1;\n  }\n  return 0;\n}',
];

/** Files the rule covers, one per kind: payments (outside the payment-write block), surfaces, a page, the CLI, devtools. */
const COVERED = [
  "server/payments/family-probe.ts",
  "server/site/family-probe.ts",
  "server/verify/family-probe.ts",
  "app/family-probe/page.tsx",
  "bin/family-probe.ts",
  "devtools/family-probe.ts",
];
const ALLOWED = [
  "server/chain/family-probe.ts",
  "server/verify/chain-family-facts.ts",
  "server/verify/check-payment-by-family.ts",
  "server/verify/network-registry.ts",
];

describe("eslint: no chain-family branches outside the adapters", () => {
  it.each(COVERED.flatMap((file) => BRANCHES.map((code) => [file, code] as const)))(
    "rejects in %s: %s",
    async (file, code) => {
      expect(await familyBranches(file, `${code}\n`)).toHaveLength(1);
    },
  );

  it.each(ALLOWED.flatMap((file) => BRANCHES.map((code) => [file, code] as const)))(
    "allows in %s: %s",
    async (file, code) => {
      expect(await familyBranches(file, `${code}\n`)).toEqual([]);
    },
  );

  it("leaves tests alone (they state what each family's rows are)", async () => {
    expect(await familyBranches("server/payments/family-probe.test.ts", `${BRANCHES[0]}\n`)).toEqual([]);
  });

  it("keeps the payment-write rule where the family rule is lifted", async () => {
    const [result] = await eslint.lintText('export const probe = { status: "settled" };\n', {
      filePath: "server/chain/family-probe.ts",
    });
    expect(result!.messages.map((m) => m.ruleId)).toContain("no-restricted-syntax");
  });

  it("accepts what is not a family branch: an IP family, a registry filter, a facts lookup", async () => {
    const code = [
      "export const ip = (family: number) => family === 4;",
      'export const rows = (r: { ofFamily(f: string): unknown[] }) => r.ofFamily("evm");',
      "export const fact = (facts: Record<string, boolean>, row: { family: string }) => facts[row.family];",
      "",
    ].join("\n");
    expect(await familyBranches("server/payments/family-probe.ts", code)).toEqual([]);
  });
});

/** A comparison with a `.family` operand or the literal "svm"/"evm", or a switch on one, in source text. */
const FAMILY_BRANCH =
  /\.family\s*[!=]==?|[!=]==?\s*[\w$?.]*\.family\b|[!=]==?\s*["'](svm|evm)["']|["'](svm|evm)["']\s*[!=]==?|switch\s*\([^)]*\.family\s*\)|case\s+["'](svm|evm)["']\s*:/;
const CONFIG = "../../eslint.config.mjs";
const { FAMILY_BRANCH_ALLOWED } = (await import(/* @vite-ignore */ CONFIG)) as { FAMILY_BRANCH_ALLOWED: string[] };
/** A file the lint rule's allowlist names: a folder (`dir/**`) or one file. */
const ALLOWED_FILES = (file: string) =>
  FAMILY_BRANCH_ALLOWED.some((entry) => (entry.endsWith("/**") ? file.startsWith(entry.slice(0, -2)) : file === entry));

describe("the source tree", () => {
  it("compares a family nowhere but in the adapters, the facts, the registry and the verifier's payment check", () => {
    const files = ["server", "app", "bin", "devtools", "e2e"]
      .flatMap((dir) => sourceFiles(dir, false))
      .filter(
        (file) =>
          !file.startsWith("server/test/") && !file.startsWith("server/verify/fixtures/") && !ALLOWED_FILES(file),
      );
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((file) =>
      readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (FAMILY_BRANCH.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it("finds the comparisons the adapters do hold (the scan can see one), and allows no more than the adapters' files", () => {
    expect(readFileSync(path.join(ROOT, "server/verify/chain-family-facts.ts"), "utf8")).toMatch(FAMILY_BRANCH);
    expect(FAMILY_BRANCH_ALLOWED).toEqual([
      "server/chain/**",
      "server/verify/chain-family-facts.ts",
      "server/verify/network-registry.ts",
      "server/verify/check-payment-by-family.ts",
    ]);
  });
});
