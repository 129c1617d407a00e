// `npm run dev` in a real browser: a page that has loaded stays loaded. The spec starts the whole dev stack itself
// (bin/dev/dev.ts: every local chain, the Solana mainnet localnet and the Base mainnet anvil included, each writing its
// snapshot into a data dir inside the project, as `.data/` is by default; then Next in dev mode), opens each page in
// Chromium, and counts the main frame's document loads over a window: exactly one, the first. A reload loop (Next's
// dev server answering the browser's HMR subscription with a full reload) counts more.
// Through each window a file outside app/ is rewritten with a new class-like word every 400 ms, as a teammate's edits,
// a test run or a benchmark write files beside a running `npm run dev`: only the UI's own files (app/) may change the
// client's output. A change to it while a page loads makes Next reload that page, and a stream of them can leave the
// dev server reloading every page it serves from then on.
// Default: 3 pages, 10 s each. SIGNET_DEV_LOOP_FULL=true: every page, a minute each.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { loadDevtoolsEnv, minimalChildEnv } from "../devtools/devtools-env";

const FULL = loadDevtoolsEnv().SIGNET_DEV_LOOP_FULL;
const PAGES = FULL ? ["/", "/explorer", "/grants", "/credits", "/dashboard", "/docs"] : ["/", "/explorer", "/grants"];
const WINDOW_MS = FULL ? 60_000 : 10_000;
/** Cold Turbopack compiles on a 2-core machine: the stack's start and each page's first compile. */
const START_TIMEOUT_MS = 240_000;
const COMPILE_TIMEOUT_MS = 180_000;
/** Its own Next output folder, so it never takes the dev lock of a developer's `npm run dev` in .next/. */
const DIST_DIR = ".next-dev-loop";
/** A file outside app/ that is neither git-ignored nor a module any page imports; removed after each window. */
const WRITES_FILE = path.join("e2e", "dev-loop-writes.tmp.txt");
const WRITE_EVERY_MS = 400;

/** Rewrites WRITES_FILE every WRITE_EVERY_MS until the returned function is called (which removes it). */
function keepWriting(): () => void {
  let n = 0;
  const write = () => writeFileSync(WRITES_FILE, `text-[#${(Date.now() * 16 + n++).toString(16).slice(-6)}]\n`);
  write();
  const timer = setInterval(write, WRITE_EVERY_MS);
  return () => {
    clearInterval(timer);
    rmSync(WRITES_FILE, { force: true });
  };
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

interface DevStack {
  baseUrl: string;
  log: () => string;
  stop: () => Promise<void>;
}

/** Starts `npm run dev` (bin/dev/dev.ts) on free ports with every local chain, and waits until Next answers. */
async function startDevStack(): Promise<DevStack> {
  const [port, devnet, mainnet, baseSepolia, baseMainnet] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  mkdirSync(".data", { recursive: true });
  const dataDir = mkdtempSync(path.join(".data", "dev-loop-"));
  const logFile = path.join(dataDir, "dev.log");
  const out = openSync(logFile, "w");
  const env: NodeJS.ProcessEnv = minimalChildEnv({
    NODE_ENV: "development",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    SIGNET_DATA_DIR: dataDir,
    SIGNET_NEXT_DIST_DIR: DIST_DIR,
    LOCALNET_RPC_PORT: String(devnet),
    LOCALNET_MAINNET_RPC_PORT: String(mainnet),
    LOCALNET_EVM_RPC_PORT: String(baseSepolia),
    LOCALNET_BASE_MAINNET_RPC_PORT: String(baseMainnet),
    // Base's two chains stand for the EVM side: no anvils for Amoy and Fuji.
    LOCALNET_POLYGON_AMOY_RPC_PORT: "0",
    LOCALNET_AVALANCHE_FUJI_RPC_PORT: "0",
    LOG_LEVEL: "warn",
  });
  // Its own process group: the stop below reaches the front server and both anvils too.
  const child: ChildProcess = spawn(
    process.execPath,
    [path.resolve("node_modules/tsx/dist/cli.mjs"), "--conditions=react-server", "bin/dev/dev.ts"],
    {
      env,
      stdio: ["ignore", out, out],
      detached: true,
    },
  );
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log = () => readFileSync(logFile, "utf8");
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // The group has already exited.
    }
  };
  const stop = async () => {
    signalGroup("SIGTERM");
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000)),
    ]);
    if (!stopped) signalGroup("SIGKILL");
    // anvil may still be writing its last state for a moment after bin/dev/dev.ts exits.
    signalGroup("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  const baseUrl = `http://localhost:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const text = log();
      await stop();
      throw new Error(`npm run dev exited before serving:\n${text}`);
    }
    const ok = await fetch(`${baseUrl}/api/v1/operator-key`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      const text = log();
      await stop();
      throw new Error(`npm run dev did not serve within ${START_TIMEOUT_MS} ms:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { baseUrl, log, stop };
}

test.describe.configure({ mode: "serial" });

let stack: DevStack;

test.beforeAll(async () => {
  test.setTimeout(START_TIMEOUT_MS + 30_000);
  stack = await startDevStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

for (const pagePath of PAGES) {
  test(`dev mode: ${pagePath} loads once and stays loaded for ${WINDOW_MS / 1000} s`, async ({ page }) => {
    test.setTimeout(COMPILE_TIMEOUT_MS + WINDOW_MS + 60_000);
    // Compiled first over plain HTTP: the window below counts reloads, not the first compile's wait.
    const warm = await fetch(`${stack.baseUrl}${pagePath}`, { signal: AbortSignal.timeout(COMPILE_TIMEOUT_MS) });
    expect(warm.status, `${pagePath} answered ${warm.status}`).toBe(200);

    // A document load is a navigation request of the main frame; the router's history.replaceState after hydration
    // is a same-document navigation and makes no request, so it is not counted.
    const loads: string[] = [];
    const started = Date.now();
    page.on("request", (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame())
        loads.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${request.url()}`);
    });
    const reloadReasons: string[] = [];
    page.on("websocket", (socket) => {
      socket.on("framereceived", ({ payload }) => {
        if (typeof payload === "string" && payload.includes('"reloadPage"')) reloadReasons.push(payload);
      });
    });
    const stopWriting = keepWriting();
    try {
      await page.goto(`${stack.baseUrl}${pagePath}`, { waitUntil: "load", timeout: COMPILE_TIMEOUT_MS });
      await page.waitForTimeout(WINDOW_MS);
    } finally {
      stopWriting();
    }
    console.log(`dev ${pagePath}: ${loads.length} document load(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(
      loads,
      `${pagePath} reloaded in dev mode (server asked: ${reloadReasons.join(" | ") || "nothing"})\nserver log tail:\n${stack.log().slice(-3000)}`,
    ).toHaveLength(1);
  });
}
