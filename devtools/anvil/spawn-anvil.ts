// Runs anvil (Foundry's local EVM node) as a child process: finds the binary inside the @foundry-rs/anvil npm
// package, starts it offline on loopback, waits until it answers JSON-RPC, and stops it for sure.
import "server-only";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Readable } from "node:stream";

/** How long anvil may take to bind its port and answer `eth_chainId` (well under a second on this machine). */
const ANVIL_START_TIMEOUT_MS = 20_000;
/** How long `stop()` waits after SIGTERM before it sends SIGKILL. */
const ANVIL_STOP_GRACE_MS = 3_000;
/** Lines of anvil's stderr kept for the error when it dies during start-up. */
const STDERR_TAIL_LINES = 20;

/** The platform packages that @foundry-rs/anvil lists as optional dependencies, by Node's platform and arch. */
const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64",
};

/**
 * The anvil executable. We spawn it directly rather than through the package's `anvil` bin script: that script is a
 * Node process that forwards only SIGINT and SIGTERM, so a SIGKILL on exit would leave the real node running.
 */
function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const exe = process.platform === "win32" ? "anvil.exe" : "anvil";
  const platformPackage = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!platformPackage) throw new Error(`anvil has no build for ${process.platform}-${process.arch}`);
  try {
    return require.resolve(`${platformPackage}/bin/${exe}`);
  } catch {
    // Installed without optional dependencies: the wrapper's postinstall then puts the binary in its own folder.
    const fallback = path.join(path.dirname(require.resolve("@foundry-rs/anvil/package.json")), exe);
    if (existsSync(fallback)) return fallback;
    throw new Error(
      `anvil binary not found: neither ${platformPackage} nor ${fallback} is installed (run npm install)`,
    );
  }
}

export interface AnvilProcess {
  /** http://host:port */
  url: string;
  pid: number;
  /** Stops anvil and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** How often anvil writes its state file, seconds (it also writes it on a graceful stop). */
const STATE_INTERVAL_S = 5;

/**
 * Starts anvil on `host:port` (0 = a free port anvil picks) with `chainId`, and resolves once it answers RPC. With
 * `stateFile`, the chain (accounts, blocks, transactions and their receipts) is loaded from it when it exists, and
 * written to it every few seconds and on stop.
 */
export async function spawnAnvil(opts: {
  host: string;
  port: number;
  chainId: number;
  stateFile?: string;
  blockTimeMs?: number;
}): Promise<AnvilProcess> {
  // No --fork-url: nothing is fetched from the internet. Without `blockTimeMs`, automine: each transaction is mined as
  // it arrives, so a receipt exists as soon as the send returns. With it, interval mining as on a real chain: a block
  // every `blockTimeMs` ms (anvil takes fractions of a second), and a sent transaction waits in the mempool until the
  // next one.
  const args = ["--host", opts.host, "--port", String(opts.port), "--chain-id", String(opts.chainId)];
  if (opts.blockTimeMs !== undefined) {
    if (!(Number.isInteger(opts.blockTimeMs) && opts.blockTimeMs > 0))
      throw new Error(`blockTimeMs must be a positive whole number of ms, got ${String(opts.blockTimeMs)}`);
    args.push("--block-time", String(opts.blockTimeMs / 1000));
  }
  if (opts.stateFile) args.push("--state", opts.stateFile, "--state-interval", String(STATE_INTERVAL_S));
  const child = spawn(anvilBinaryPath(), args, { stdio: ["ignore", "pipe", "pipe"] });
  // A test run or `npm run dev` that exits without close() must not leave a node behind holding a port.
  const killOnExit = () => child.kill("SIGKILL");
  process.on("exit", killOnExit);

  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    process.off("exit", killOnExit);
    // No pid: the spawn itself failed, so there is nothing to stop and no exit event will come.
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), ANVIL_STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const stderrTail: string[] = [];
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail.push(...chunk.split("\n").filter(Boolean));
    stderrTail.splice(0, Math.max(0, stderrTail.length - STDERR_TAIL_LINES));
  });

  try {
    const port = await boundPort(child, stderrTail);
    const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
    await waitForChainId(url, opts.chainId);
    return { url, pid: child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The port anvil bound: without --silent it prints it, which is the only way to learn the port it picked for 0. */
function boundPort(child: ChildProcessByStdio<null, Readable, Readable>, stderrTail: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let banner: string | null = "";
    const timer = setTimeout(
      () => reject(new Error(`anvil did not start within ${ANVIL_START_TIMEOUT_MS} ms`)),
      ANVIL_START_TIMEOUT_MS,
    );
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      // Keep draining after start-up (anvil logs every call, and a full pipe would block it), but stop collecting.
      if (banner === null) return;
      banner += chunk;
      const m = /Listening on \S+:(\d+)/.exec(banner);
      if (m) {
        banner = null;
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // "close" rather than "exit": it comes after stderr has been read, so the tail holds anvil's last words.
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited during start-up (${signal ?? `code ${code}`}): ${stderrTail.join(" | ")}`));
    });
  });
}

/** Polls `eth_chainId` until anvil answers, and checks it plays the chain we asked for. */
async function waitForChainId(url: string, chainId: number): Promise<void> {
  const deadline = Date.now() + ANVIL_START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const answer = await fetchChainId(url).catch((err: unknown) => {
      lastError = err;
      return null;
    });
    if (answer !== null) {
      if (answer !== chainId) throw new Error(`anvil at ${url} reports chain id ${answer}, wanted ${chainId}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `anvil at ${url} did not answer eth_chainId within ${ANVIL_START_TIMEOUT_MS} ms: ${String(lastError)}`,
  );
}

async function fetchChainId(url: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
  });
  const body = (await res.json()) as { result?: string };
  if (typeof body.result !== "string") throw new Error(`eth_chainId answered ${JSON.stringify(body)}`);
  return Number(body.result);
}
