// Runs the `signet` CLI as users do, `node bin/cli/signet.mjs …` from the repo root, in a child process (async, so
// servers in the test's process can answer it), with its own data folder; and any other node script the same way.
import { testEnv } from "./env";
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../verify/vectors";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `signet args…` with SIGNET_DATA_DIR=`dataDir`; killed after `timeoutMs`. `env` changes the child's environment
 * only (a variable set to undefined is removed from it).
 */
export function runSignet(
  args: string[],
  dataDir: string,
  timeoutMs = 20_000,
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = testEnv({ SIGNET_DATA_DIR: dataDir, NODE_ENV: "test" });
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  return runNodeScript(path.join(REPO_ROOT, "bin/cli/signet.mjs"), args, childEnv, timeoutMs);
}

/** Runs `node script args…` from the repo root with `env`, in a child process; killed after `timeoutMs`. */
export function runNodeScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
