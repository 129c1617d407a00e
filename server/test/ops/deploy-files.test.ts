// The files docs/deploy.md tells an operator to install are checked by the tools that will read them: the systemd unit
// by `systemd-analyze verify` (which warns on any directive it cannot parse), the nginx site by `nginx -t` inside a
// main configuration like Debian's. reverse-proxy.test.ts then serves through that same site file.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../devtools/soak/soak-stack";
import { generatePrivateKey } from "viem/accounts";
import {
  assertReadyToServe,
  envSchema,
  loadConfig,
  readSecretFiles,
  rpcUrlVariable,
  SECRET_FILE_VARIABLES,
} from "../../env";
import { SHIPPED_NETWORKS } from "../../verify";
import { generateKeypair, toSolanaCliJson } from "../../keys/parse-secret-key";

const UNIT = readFileSync(path.join(REPO_ROOT, "deploy/signet.service"), "utf8");

/** The absolute path of a tool, or a loud failure naming the package (.ci/run installs each where absent). */
function tool(name: string, debianPackage: string): string {
  const found =
    spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim() ||
    ["/usr/sbin", "/usr/bin"].map((d) => path.join(d, name)).find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `${name} is not installed: \`apt-get install ${debianPackage}\` (.ci/run installs it where it is absent)`,
    );
  return found;
}

/** systemd-analyze verify's complaints about a unit file written from `text` (ExecStart's npm is this machine's). */
function verifyUnit(text: string): { status: number | null; complaints: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "signet-unit-"));
  const file = path.join(dir, "signet.service");
  // systemd checks that ExecStart's program exists: the unit names Debian's /usr/bin/npm.
  writeFileSync(file, text.replace("ExecStart=/usr/bin/npm start", `ExecStart=${tool("npm", "npm")} start`));
  const run = spawnSync(tool("systemd-analyze", "systemd"), ["verify", file], { encoding: "utf8" });
  // Complaints about other units on the machine are not this file's.
  const complaints = `${run.stdout}${run.stderr}`
    .split("\n")
    .filter((line) => line.includes("signet.service"))
    .join("\n");
  return { status: run.status, complaints };
}

describe("deploy/signet.service", () => {
  it("passes systemd-analyze verify without a complaint", () => {
    expect(verifyUnit(UNIT)).toEqual({ status: 0, complaints: "" });
  });

  it("is checked for real: a directive systemd cannot parse, or a program that is not there, is a complaint", () => {
    expect(verifyUnit(UNIT.replace("Restart=on-failure", "Restart=sometimes")).complaints).toMatch(
      /restart specifier/i,
    );
    const missing = verifyUnit(UNIT.replace("ExecStart=/usr/bin/npm start", "ExecStart=/nonexistent/npm start"));
    expect(missing.status).not.toBe(0);
  });

  it("stops the way the service drains: SIGTERM, with longer than the drain takes", () => {
    expect(UNIT).toMatch(/^KillSignal=SIGTERM$/m);
    const stopSec = Number(/^TimeoutStopSec=(\d+)$/m.exec(UNIT)?.[1]);
    // SHUTDOWN_GRACE_MS's default and the 5 s in which the waiting records are written.
    expect(stopSec * 1_000).toBeGreaterThan(Number(envSchema.shape.SHUTDOWN_GRACE_MS.parse(undefined)) + 5_000);
  });
});

describe("deploy/nginx-signet.conf", () => {
  it("passes nginx -t inside a main configuration like Debian's", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-nginx-t-"));
    const key = path.join(dir, "key.pem");
    const certificate = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=signet.example.com",
        "-keyout",
        key,
        "-out",
        certificate,
      ],
      { stdio: "pipe" },
    );
    const site = readFileSync(path.join(REPO_ROOT, "deploy/nginx-signet.conf"), "utf8")
      .replace("/etc/letsencrypt/live/signet.example.com/fullchain.pem", certificate)
      .replace("/etc/letsencrypt/live/signet.example.com/privkey.pem", key);
    writeFileSync(path.join(dir, "signet.conf"), site);
    writeFileSync(
      path.join(dir, "nginx.conf"),
      `pid ${dir}/nginx.pid;\nevents {}\nhttp {\n  include ${dir}/signet.conf;\n}\n`,
    );
    const run = spawnSync(
      tool("nginx", "nginx"),
      ["-t", "-p", dir, "-e", path.join(dir, "error.log"), "-c", path.join(dir, "nginx.conf")],
      { encoding: "utf8" },
    );
    expect(run.stderr).toMatch(/syntax is ok/);
    expect(run.stderr).toMatch(/test is successful/);
    expect(run.status).toBe(0);
  });
});

describe(".env.production.example", () => {
  const lines = readFileSync(path.join(REPO_ROOT, ".env.production.example"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => /^([A-Z0-9_]+)=(.*)$/.exec(line)!);

  it("names only variables the service reads, each once, a secret by its file", () => {
    expect(lines.every(Boolean)).toBe(true);
    const names = lines.map((m) => m[1]!);
    expect(new Set(names).size).toBe(names.length);
    const fileNames = SECRET_FILE_VARIABLES.map((name) => `${name}_FILE`);
    const rpcNames = SHIPPED_NETWORKS.ids.map(rpcUrlVariable);
    for (const name of names)
      expect(
        Object.keys(envSchema.shape).includes(name) || fileNames.includes(name) || rpcNames.includes(name),
        name,
      ).toBe(true);
  });

  it("is a whole production configuration once its files exist and its placeholders are replaced", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "signet-env-example-"));
    const content = (name: string) =>
      name === "DATABASE_URL"
        ? "postgresql://signet@db.internal:5432/signet"
        : name === "FACILITATOR_EVM_SECRET_KEY"
          ? generatePrivateKey()
          : name.endsWith("_SECRET_KEY")
            ? toSolanaCliJson(generateKeypair())
            : randomBytes(32).toString("hex");
    const env: Record<string, string> = { NODE_ENV: "production" };
    for (const [, name, value] of lines as RegExpExecArray[]) {
      if (name!.endsWith("_FILE")) {
        const file = path.join(dir, path.basename(value!));
        writeFileSync(file, `${content(name!.slice(0, -"_FILE".length))}\n`);
        env[name!] = file;
      } else {
        env[name!] = value!.startsWith("ReplaceWith") ? generateKeypair().publicKeyBase58 : value!;
      }
    }
    const cfg = loadConfig(readSecretFiles(env));
    expect(() => assertReadyToServe(cfg)).not.toThrow();
    expect(cfg).toMatchObject({
      isProduction: true,
      trustedProxyHops: 1,
      baseUrl: "https://signet.example.com",
      deprecations: [],
    });
    // Every network of this release has its RPC.
    expect(Object.keys(cfg.rpcUrls).sort()).toEqual([...SHIPPED_NETWORKS.ids].sort());
  });
});
