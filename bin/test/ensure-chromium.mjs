// The browser suite runs on Debian's chromium at a fixed path (never a downloaded browser). When it is missing,
// `npm test` installs it with apt-get where it can (root, apt-get present); otherwise it stops with one line saying
// what to install. It never skips the browser suite.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const APT_GET_PATH = "/usr/bin/apt-get";
export const MISSING_CHROMIUM =
  "browser tests need Debian's chromium at /usr/bin/chromium: run `apt-get install chromium` (as root), then `npm test` again";

/**
 * Makes sure chromium is there, installing it when possible. `exists(path)` and `run(command, args)` (true on exit 0)
 * are injected so the decision can be tested without touching the machine.
 * @returns {{ ok: true, installed: boolean } | { ok: false, message: string }}
 */
export function ensureChromium({ exists, run, isRoot, log = () => {} }) {
  if (exists(CHROMIUM_PATH)) return { ok: true, installed: false };
  if (!isRoot || !exists(APT_GET_PATH)) return { ok: false, message: MISSING_CHROMIUM };
  log(`${CHROMIUM_PATH} is missing: installing Debian's chromium with apt-get`);
  const installed =
    run("apt-get", ["update", "-qq"]) && run("apt-get", ["install", "-y", "-qq", "chromium"]) && exists(CHROMIUM_PATH);
  return installed ? { ok: true, installed: true } : { ok: false, message: MISSING_CHROMIUM };
}

/** ensureChromium() against this machine. */
export function ensureChromiumHere() {
  return ensureChromium({
    exists: existsSync,
    run: (command, args) =>
      spawnSync(command, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } })
        .status === 0,
    isRoot: typeof process.getuid === "function" && process.getuid() === 0,
    log: (line) => console.log(line),
  });
}
