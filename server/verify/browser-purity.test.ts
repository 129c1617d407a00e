// server/verify must run unchanged in the browser (the explorer imports it). Two guards:
// 1. an import lint over its sources: only relative imports, @noble/* and bs58; no process/Buffer/require;
// 2. a real browser-platform bundle (esbuild, platform "browser") evaluated in a bare VM context that has no
//    Node globals, then used to verify a public vector.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { VECTORS_DIR } from "./fixtures/vectors-dir";

const VERIFY_DIR = __dirname;
const ALLOWED_PACKAGES = [/^@noble\/(curves|hashes)\//, /^bs58$/];

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (
        /\.tsx?$/.test(entry.name) &&
        !/\.test\.tsx?$/.test(entry.name) &&
        !full.includes(`${path.sep}fixtures${path.sep}`)
      )
        out.push(full);
    }
  };
  walk(VERIFY_DIR);
  return out;
}

describe("server/verify browser purity", () => {
  it.each(sourceFiles().map((f) => [path.relative(VERIFY_DIR, f), f]))(
    "%s imports nothing a browser lacks",
    (_name, file) => {
      const text = readFileSync(file, "utf8");
      const specifiers = [
        ...text.matchAll(/(?:import|export)[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g),
      ].map((m) => m[1] ?? m[2] ?? "");
      for (const spec of specifiers) {
        if (spec.startsWith("./")) continue;
        expect(
          ALLOWED_PACKAGES.some((re) => re.test(spec)),
          `${file} imports ${spec}`,
        ).toBe(true);
      }
      expect(text).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(|from\s+["']node:|from\s+["']next/);
    },
  );

  it("bundles for the browser platform and verifies a vector in a context without Node globals", async () => {
    const result = await build({
      entryPoints: [path.join(VERIFY_DIR, "index.ts")],
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "SignetVerify",
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]!.text;
    // Only what browsers have: no process, Buffer, require, module, global.
    const sandbox: Record<string, unknown> = {
      TextEncoder,
      TextDecoder,
      atob,
      btoa,
      crypto,
      console,
      AbortController,
      setTimeout,
      clearTimeout,
      URL,
      Response,
    };
    vm.createContext(sandbox);
    vm.runInContext(`${code}\nthis.SignetVerify = SignetVerify;`, sandbox);
    const lib = sandbox.SignetVerify as typeof import("./index");
    const dir = path.join(VECTORS_DIR, "prepaid-001");
    const read = (f: string) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as unknown;
    const verdict = await lib.verifyReceipt({
      receipt: read("receipt.json"),
      prompt: read("request.json"),
      response: read("response.json"),
      operatorKey: readFileSync(path.join(dir, "operator-pubkey.txt"), "utf8").trim(),
      offline: true,
    });
    expect(verdict.ok).toBe(true);
    expect(sandbox).not.toHaveProperty("process");
  });
});
