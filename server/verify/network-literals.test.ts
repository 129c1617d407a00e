// A network's facts live in its row (network-registry.ts): no other source file of the service or its pages spells a
// shipped network's CAIP-2 id or USDC asset. Tests, the registry itself, the verifier's vectors and fixtures and
// generated code may; bin/, devtools/ and e2e/ are outside the service and not checked.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SHIPPED_NETWORK_ROWS } from "./network-registry";

const ROOT = path.resolve(__dirname, "../..");
const CHECKED = ["server", "app"];
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const ALLOWED = [
  /\.test\.tsx?$/,
  /^server\/test\//,
  /^server\/verify\/network-registry\.ts$/,
  /^server\/verify\/vectors\//,
  /^server\/verify\/fixtures\//,
  /^server\/generated\//,
];

/** Every source file under `CHECKED` the rule applies to, relative to the repository's root. */
function checkedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(rel);
      } else if (SOURCE.test(entry.name) && !ALLOWED.some((re) => re.test(rel))) {
        out.push(rel);
      }
    }
  };
  for (const dir of CHECKED) walk(dir);
  return out;
}

/** A pattern for each fact: an EVM id not followed by another digit (eip155:8453 is not eip155:84532), an address in any case. */
function literalPatterns(): { what: string; pattern: RegExp }[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return SHIPPED_NETWORK_ROWS.flatMap((row) => [
    { what: `${row.id}'s CAIP-2 id`, pattern: new RegExp(`${escape(row.caip2)}(?![0-9])`) },
    { what: `${row.id}'s USDC asset`, pattern: new RegExp(escape(row.usdcAsset), row.family === "evm" ? "i" : "") },
  ]);
}

/** Each literal of a shipped network's facts in `text`, as `<what> on line <n>`. */
function literalsIn(text: string): string[] {
  const found: string[] = [];
  for (const { what, pattern } of literalPatterns()) {
    text.split("\n").forEach((line, i) => {
      if (pattern.test(line)) found.push(`${what} on line ${i + 1}`);
    });
  }
  return found;
}

describe("network literals", () => {
  it("finds the files it checks (the walk reached the service and its pages)", () => {
    const files = checkedFiles();
    expect(files).toContain("server/env/index.ts");
    expect(files).toContain("app/dashboard/figure-charts.tsx");
    expect(files).not.toContain("server/verify/network-registry.ts");
  });

  it("no file outside the registry spells a shipped network's CAIP-2 id or USDC asset", () => {
    const offenders = checkedFiles().flatMap((file) =>
      literalsIn(readFileSync(path.join(ROOT, file), "utf8")).map((where) => `${file}: ${where}`),
    );
    expect(offenders).toEqual([]);
  });

  it("catches each fact however it is written, and not a longer chain id or an unrelated string", () => {
    expect(literalsIn('const x = "eip155:84532";')).toEqual(["base-sepolia's CAIP-2 id on line 1"]);
    expect(literalsIn("// eip155:8453 is Base")).toEqual(["base's CAIP-2 id on line 1"]);
    expect(literalsIn("`solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1aFoKMcMZ9YTs`")).toEqual([
      "solana-devnet's CAIP-2 id on line 1",
    ]);
    expect(literalsIn("x\n0x036cbd53842c5426634e7929541ec2318f3dcf7e")).toEqual([
      "base-sepolia's USDC asset on line 2",
    ]);
    expect(literalsIn('"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"')).toEqual([
      "solana-mainnet's USDC asset on line 1",
    ]);
    expect(literalsIn('"eip155:845320" "eip155:1" "base-sepolia" 84532')).toEqual([]);
  });
});
