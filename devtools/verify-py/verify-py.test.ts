// The second-language verifier (verify_receipt.py, written from docs/receipts.md alone) against every receipt vector
// an offline verifier can run, and its number writing against JavaScript's own over the boundaries the docs name. It
// runs on Debian's python3 with python3-nacl, which .ci/run installs: a machine without them fails here, loudly.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCRIPT = path.join(import.meta.dirname, "verify_receipt.py");
const VECTOR_SETS = ["server/verify/vectors/sir-v2", "server/verify/vectors/signet-generated"];
/** Debian's interpreter, where its python3-nacl package installs PyNaCl. */
const PYTHON = "/usr/bin/python3";
const OFFLINE_CHECKS = ["prompt_hash_ok", "response_hash_ok", "service_signature_ok"] as const;

interface Expected {
  kind?: string;
  checks?: Record<string, boolean | string>;
  error?: unknown;
  verdict_signature_ok?: boolean;
  receipt_signature_matches?: boolean;
}

function python(args: string[]): string {
  try {
    // -B: no bytecode cache written into the repository.
    return execFileSync(PYTHON, ["-B", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    // Exit 1 is a verdict (a vector meant to fail); anything else is the script or the machine failing.
    if (e.status === 1 && e.stdout) return e.stdout;
    throw new Error(`${PYTHON} ${args.slice(0, 2).join(" ")} failed (status ${e.status}): ${e.stderr ?? ""}`, {
      cause: err,
    });
  }
}

/** Every vector folder with what it expects; `runs` is false for those only a fetching verifier can run. */
function vectors() {
  return VECTOR_SETS.flatMap((set) =>
    readdirSync(path.join(ROOT, set), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => {
        const dir = path.join(ROOT, set, d.name);
        const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as Expected;
        // Parse vectors hold pasted text, error vectors a failed fetch or a refused input: nothing to recompute.
        const runs =
          expected.kind === "verdict" || (expected.checks !== undefined && existsSync(path.join(dir, "receipt.json")));
        return { name: `${path.basename(set)}/${d.name}`, dir, expected, runs };
      }),
  );
}

describe("the second-language verifier (Python, from docs/receipts.md)", () => {
  it("finds Debian's python3 with PyNaCl (.ci/run installs python3-nacl)", () => {
    expect(existsSync(PYTHON), `${PYTHON} is missing`).toBe(true);
    expect(python(["-c", "import nacl; print('ok')"]).trim()).toBe("ok");
  });

  it("computes every vector's offline checks, and every verdict's signature and binding, as expected", () => {
    const all = vectors();
    const runnable = all.filter((v) => v.runs);
    // The ones it leaves: pasted text to parse, and fetch or input errors; each says so in its expected.json.
    for (const v of all.filter((v) => !v.runs))
      expect(v.expected.kind === "parse" || v.expected.error !== undefined, v.name).toBe(true);
    expect(runnable.length).toBeGreaterThanOrEqual(40);
    const lines = python([SCRIPT, ...runnable.map((v) => v.dir)])
      .trim()
      .split("\n");
    expect(lines).toHaveLength(runnable.length);
    lines.forEach((line, i) => {
      const v = runnable[i]!;
      const got = JSON.parse(line) as Record<string, unknown>;
      if (v.expected.kind === "verdict") {
        expect(got, v.name).toEqual({
          vector: path.basename(v.dir),
          verdict_signature_ok: v.expected.verdict_signature_ok,
          receipt_signature_matches: v.expected.receipt_signature_matches,
        });
        return;
      }
      const want = Object.fromEntries(OFFLINE_CHECKS.map((check) => [check, v.expected.checks![check]]));
      expect(got, v.name).toEqual({ vector: path.basename(v.dir), ...want });
    });
  });

  it("writes numbers as JavaScript does, at every boundary of the rule and at random", () => {
    const boundaries = [
      0,
      -0,
      1,
      -1,
      0.5,
      12.5,
      1.001,
      100,
      0.1,
      0.000045,
      0.000009,
      0.000001,
      0.0000015,
      1e-7,
      9.9e-7,
      1.5e-7,
      1.23e-18,
      123456789012345680000,
      1e20,
      1e21,
      1.5e21,
      1e16,
      2 ** 53,
      2 ** 53 + 2,
      5e-324,
      1.7976931348623157e308,
      -1e-7,
      0.000014999999621068127,
      1.0000000116860974e-7,
      3.4028234663852886e38,
    ];
    // Deterministic "random" doubles over many exponents: a linear congruential sequence, no Math.random.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const spread = Array.from({ length: 400 }, () => (next() - 0.5) * 10 ** Math.floor(next() * 60 - 30));
    const numbers = [...boundaries, ...spread];
    const out = python([
      "-c",
      "import json, sys; sys.path.insert(0, sys.argv[1]); import verify_receipt as v; print(json.dumps([v.js_number(x) for x in json.loads(sys.argv[2])]))",
      path.dirname(SCRIPT),
      JSON.stringify(numbers),
    ]);
    expect(JSON.parse(out)).toEqual(numbers.map((n) => String(n)));
  });
});
