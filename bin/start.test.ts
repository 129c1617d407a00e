import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Runs `npm start` with `env` (nothing inherited but PATH and HOME); resolves with its exit code and stderr. */
function npmStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["start", "--silent"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // A start that got past the config check would serve forever: stop it, the test has failed either way.
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("npm start", () => {
  it("is production even without NODE_ENV: with no keys configured it refuses to start and writes no dev keys", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "signet-start-"));
    const { code, stderr } = await npmStart({ SIGNET_DATA_DIR: dataDir, PORT: "39517", SERVICE_BASE_URL: "https://signet.example", LOG_LEVEL: "silent" });
    expect(stderr).toContain("signet: refusing to start: SERVICE_OPERATOR_SECRET_KEY is required in production");
    expect(code).toBe(1);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 60_000);
});
