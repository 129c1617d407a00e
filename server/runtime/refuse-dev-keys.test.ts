import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../env";
import { createServiceKeys } from "../keys/service-keys";
import { DEV_KEY_FILES, devKeyFilesIn, refuseDevKeysInProduction } from "./refuse-dev-keys";

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "signet-dev-keys-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const production = (dir: string, extra: Record<string, string> = {}) =>
  loadConfig({ NODE_ENV: "production", SERVICE_BASE_URL: "https://signet.example", SIGNET_DATA_DIR: dir, ...extra });

describe("devKeyFilesIn()", () => {
  it("finds every file the dev key loaders write, and only those", () => {
    const dir = dataDir();
    // What `npm run dev` leaves in a data dir: the dev loaders' keys, and files that are not keys.
    const keys = createServiceKeys(loadConfig({ SIGNET_DATA_DIR: dir }));
    keys.operator();
    keys.verifier();
    keys.log();
    writeFileSync(path.join(dir, "session-secret"), "s");
    expect(devKeyFilesIn(dir)).toEqual(["operator-key.json", "verifier-key.json", "log-key.json"]);
    for (const file of DEV_KEY_FILES) writeFileSync(path.join(dir, file), "{}");
    expect(devKeyFilesIn(dir)).toEqual([...DEV_KEY_FILES]);
  });

  it("rejects malformed input: a data dir that is not a path", () => {
    expect(() => devKeyFilesIn("")).toThrow(TypeError);
    expect(() => devKeyFilesIn(undefined as unknown as string)).toThrow(TypeError);
  });
});

describe("refuseDevKeysInProduction()", () => {
  it("refuses production beside a dev key, in one line naming SIGNET_DATA_DIR and the files", () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, "facilitator-key.json"), "[]");
    writeFileSync(path.join(dir, "facilitator-evm-key.txt"), "0x");
    expect(() => refuseDevKeysInProduction(production(dir))).toThrow(ConfigError);
    expect(() => refuseDevKeysInProduction(production(dir))).toThrow(
      `SIGNET_DATA_DIR (${dir}) holds dev keys (facilitator-key.json, facilitator-evm-key.txt): production must not run beside them; give production a data directory of its own`,
    );
  });

  it("lets production start in a data dir without dev keys, or beside them when SIGNET_DEV_KEYS_IN_PRODUCTION is true", () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, "ip-hash-salt"), "not a key");
    expect(() => refuseDevKeysInProduction(production(dir))).not.toThrow();
    writeFileSync(path.join(dir, "operator-signin-key.json"), "[]");
    expect(() => refuseDevKeysInProduction(production(dir))).toThrow(/holds dev keys \(operator-signin-key\.json\)/);
    expect(() => refuseDevKeysInProduction(production(dir, { SIGNET_DEV_KEYS_IN_PRODUCTION: "true" }))).not.toThrow();
  });

  it("checks nothing outside production, where the dev keys belong", () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, "operator-key.json"), "[]");
    expect(() => refuseDevKeysInProduction(loadConfig({ SIGNET_DATA_DIR: dir }))).not.toThrow();
  });

  it("rejects malformed input: SIGNET_DEV_KEYS_IN_PRODUCTION other than exactly true or false", () => {
    expect(() => production(dataDir(), { SIGNET_DEV_KEYS_IN_PRODUCTION: "yes" })).toThrow(
      /SIGNET_DEV_KEYS_IN_PRODUCTION: must be exactly "true" or "false"/,
    );
  });
});
