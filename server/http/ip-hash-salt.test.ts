import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../settings/setting-definitions";
import { ipHashSalt } from "./ip-hash-salt";

const unset = { ipHashSalt: null } as unknown as Settings;
const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "signet-salt-"));
  dirs.push(dir);
  return path.join(dir, "data");
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("ipHashSalt()", () => {
  it("uses the setting when it is set, in any mode", () => {
    const set = { ipHashSalt: "operator-salt" } as unknown as Settings;
    expect(ipHashSalt(set, { isProduction: true, dataDir: dataDir() })).toBe("operator-salt");
  });

  it("refuses production without the setting", () => {
    expect(() => ipHashSalt(unset, { isProduction: true, dataDir: dataDir() })).toThrow(/IP_HASH_SALT/);
  });

  it("generates development's salt once into the data dir (owner-only), and reads it once", () => {
    const cfg = { isProduction: false, dataDir: dataDir() };
    const salt = ipHashSalt(unset, cfg);
    const file = path.join(cfg.dataDir, "ip-hash-salt");
    expect(salt).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(file, "utf8")).toBe(salt);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The file is not read again while it is there: the salt a process hashes under does not move under it.
    writeFileSync(file, "f".repeat(64));
    expect(ipHashSalt(unset, cfg)).toBe(salt);
  });

  it("keeps a salt another process generated, and generates a new one when the file was deleted", () => {
    const cfg = { isProduction: false, dataDir: dataDir() };
    const first = ipHashSalt(unset, cfg);
    rmSync(path.join(cfg.dataDir, "ip-hash-salt"));
    const second = ipHashSalt(unset, cfg);
    expect(second).not.toBe(first);
    expect(readFileSync(path.join(cfg.dataDir, "ip-hash-salt"), "utf8")).toBe(second);

    const other = { isProduction: false, dataDir: dataDir() };
    mkdirSync(other.dataDir, { recursive: true });
    writeFileSync(path.join(other.dataDir, "ip-hash-salt"), `${"a".repeat(64)}\n`);
    expect(ipHashSalt(unset, other)).toBe("a".repeat(64));
  });
});
