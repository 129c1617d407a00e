// The public receipt vectors, vendored in server/verify/vectors/sir-v2 (a verbatim copy of the shared conformance set).
// A missing or empty folder is a loud failure (assertVectorsPresent), never a silent zero-test pass.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { CHECK_NAMES, type Checks } from "../../verify";

export const REPO_ROOT = path.resolve(__dirname, "../../..");
export const VECTORS_DIR = path.join(REPO_ROOT, "server/verify/vectors/sir-v2");

export interface Vector {
  name: string;
  dir: string;
  receipt: Record<string, unknown>;
  prompt: unknown;
  response: unknown;
  operatorKey: string;
  expected: { checks: Record<string, boolean | string>; ok: unknown };
}

/** Every vector folder, sorted; [] when the folder is missing (assertVectorsPresent turns that into a failure). */
export function vectorNames(): string[] {
  if (!existsSync(VECTORS_DIR)) return [];
  return readdirSync(VECTORS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function assertVectorsPresent(): void {
  expect(existsSync(VECTORS_DIR), `the conformance vectors are missing: ${VECTORS_DIR}`).toBe(true);
  expect(vectorNames().length, `no vector folders in ${VECTORS_DIR}`).toBeGreaterThan(0);
}

export function readVector(name: string): Vector {
  const dir = path.join(VECTORS_DIR, name);
  const json = (file: string) => JSON.parse(readFileSync(path.join(dir, file), "utf8")) as unknown;
  return {
    name,
    dir,
    receipt: json("receipt.json") as Record<string, unknown>,
    prompt: json("request.json"),
    response: json("response.json"),
    operatorKey: readFileSync(path.join(dir, "operator-pubkey.txt"), "utf8").trim(),
    expected: json("expected.json") as Vector["expected"],
  };
}

/**
 * The five booleans a vector expects. `skip-offline` checks are false offline (the vectors' notes) and, online,
 * whatever the chain says: `online` gives their value when the chain answer matches the receipt.
 */
export function expectedChecks(v: Vector, mode: { online: boolean }): Checks {
  const out = {} as Checks;
  for (const name of CHECK_NAMES) {
    const want = v.expected.checks[name];
    if (want === "skip-offline") out[name] = mode.online;
    else if (typeof want === "boolean") out[name] = want;
    else throw new Error(`vector ${v.name}: unexpected value ${JSON.stringify(want)} for ${name}`);
  }
  return out;
}
