import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSecretKey } from "../../keys/parse-secret-key";

const ROOT = path.resolve(__dirname, "../../..");
const VECTORS = path.resolve(ROOT, "../shared/conformance/sir-v2");
const signet = (args: string[]) => {
  const r = spawnSync(process.execPath, [path.join(ROOT, "bin/signet.mjs"), ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, SIGNET_DATA_DIR: mkdtempSync(path.join(tmpdir(), "signet-cli-")) } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const folders = existsSync(VECTORS) ? readdirSync(VECTORS).sort() : [];

describe("signet verify", () => {
  it("finds the public vectors", () => {
    expect(folders.length).toBeGreaterThan(0);
  });

  it.each(folders)("verifies vector %s offline with the expected booleans and exit code", (name) => {
    const dir = path.join(VECTORS, name);
    const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as { checks: Record<string, boolean | string>; ok: unknown };
    const key = readFileSync(path.join(dir, "operator-pubkey.txt"), "utf8").trim();
    const r = signet(["verify", "--receipt", path.join(dir, "receipt.json"), "--prompt", path.join(dir, "request.json"), "--response", path.join(dir, "response.json"), "--operator-key", key, "--offline"]);
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: Record<string, boolean> };
    for (const [check, want] of Object.entries(expected.checks)) expect(out.checks[check], check).toBe(want === "skip-offline" ? false : want);
    expect(r.code).toBe(expected.ok === true ? 0 : 1);
  });

  it("accepts the base64 X-Service-Receipt form, and --signature-only with just a receipt", () => {
    const dir = path.join(VECTORS, "prepaid-001");
    const b64 = path.join(mkdtempSync(path.join(tmpdir(), "signet-cli-")), "receipt.b64");
    writeFileSync(b64, Buffer.from(readFileSync(path.join(dir, "receipt.json"))).toString("base64"));
    const key = readFileSync(path.join(dir, "operator-pubkey.txt"), "utf8").trim();
    const full = signet(["verify", "--receipt", b64, "--prompt", path.join(dir, "request.json"), "--response", path.join(dir, "response.json"), "--operator-key", key]);
    expect(full.code).toBe(0);
    const sigOnly = signet(["verify", "--receipt", b64, "--operator-key", key, "--signature-only"]);
    expect(sigOnly.code).toBe(0);
    expect(JSON.parse(sigOnly.stdout)).toMatchObject({ ok: true, checks: { service_signature_ok: true } });
  });

  it.each([
    ["no --receipt", ["verify"]],
    ["an unreadable file", ["verify", "--receipt", "/nonexistent", "--signature-only", "--operator-key", "8MX7BMkwGCmog9VodYeo7YAcZKyyYBuoQybeDMyQFZbS"]],
    ["an unknown flag", ["verify", "--bogus"]],
    ["an unreachable endpoint", ["verify", "--receipt", path.join(VECTORS, "prepaid-001", "receipt.json"), "--signature-only", "--endpoint", "http://127.0.0.1:1"]],
    ["an unknown command", ["frobnicate"]],
  ])("exits 2 with a one-line reason for %s", (_label, args) => {
    const r = signet(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")[0]).toMatch(/^(signet: |usage:)/);
    expect(r.stdout).toBe("");
  });
});

describe("signet keygen", () => {
  it("writes a Solana CLI keypair whose public key it prints, and never overwrites it", () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), "signet-cli-")), "id.json");
    const r = signet(["keygen", "--out", out]);
    expect(r.code).toBe(0);
    const bytes = JSON.parse(readFileSync(out, "utf8")) as number[];
    expect(bytes).toHaveLength(64);
    expect(parseSecretKey(readFileSync(out, "utf8")).publicKeyBase58).toBe(r.stdout.trim());
    const again = signet(["keygen", "--out", out]);
    expect(again.code).toBe(2);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(bytes);
  });
});
