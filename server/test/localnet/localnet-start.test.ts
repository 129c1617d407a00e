// `signet localnet start` as users run it (`node bin/cli/signet.mjs …`, a child process): the chains `npm run dev` runs,
// alone, on the ports given (a Solana chain playing devnet and one playing mainnet, anvil playing Base Sepolia and
// Base); stdout is the environment a production-mode server needs to use them; SIGINT stops them all. And `localnet
// fund 0x… --eth N` on that anvil adds ETH only: no test USDC unless --usdc is given.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createPublicClient, http, type Abi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { EIP3009_USDC_ABI, USDC_BY_EVM_CHAIN } from "../../../devtools/anvil";
import { REPO_ROOT } from "../verify/vectors";
import { closedPort, startServer } from "../verify/local-servers";
import { runSignet } from "../support/signet-cli";
import { tempDataDir, testEnv } from "../support/env";

interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const running: Started[] = [];
afterAll(() => {
  for (const r of running) r.child.kill("SIGKILL");
});

/** Starts `signet localnet start args…` with its own data dir; resolves once it printed its last variable (or exited). */
async function start(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "bin/cli/signet.mjs"), "localnet", "start", ...args], {
    cwd: REPO_ROOT,
    env: testEnv({ SIGNET_DATA_DIR: tempDataDir("signet-localnet-start-"), NODE_ENV: "test", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const started: Started = { child, stdout: () => stdout, stderr: () => stderr, exited };
  running.push(started);
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes("EXPLORER_ADVERTISE_RPC=true\n")) resolve();
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    void exited.then(() => resolve());
  });
  return started;
}

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
};

/** Four distinct free ports. */
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await closedPort());
  return [...ports];
}

describe("signet localnet start", () => {
  it("runs the four chains on the ports given, prints a production server's variables for them, and stops on SIGINT", async () => {
    const [devnet, mainnet, sepolia, base] = await freePorts(4);
    const run = await start([
      "--solana-port",
      String(devnet),
      "--solana-mainnet-port",
      String(mainnet),
      "--evm-port",
      String(sepolia),
      "--base-port",
      String(base),
    ]);
    expect(run.stdout(), run.stderr()).toBe(
      [
        `RPC_URL_SOLANA_DEVNET=http://127.0.0.1:${devnet}`,
        `RPC_URL_SOLANA_MAINNET=http://127.0.0.1:${mainnet}`,
        `RPC_URL_BASE=http://127.0.0.1:${base}`,
        `RPC_URL_BASE_SEPOLIA=http://127.0.0.1:${sepolia}`,
        "VERIFIER_ALLOW_PRIVATE_NETWORKS=true",
        "EXPLORER_ADVERTISE_RPC=true",
        "",
      ].join("\n"),
    );
    // Each chain plays its network: the genesis hash a Solana client checks, the chain id an EVM client checks.
    expect(await rpc(`http://127.0.0.1:${devnet}`, "getGenesisHash")).toBe(
      "EtWTRABZaYq6iMfeYKouRu166VU2xqa1aFoKMcMZ9YTs",
    );
    expect(await rpc(`http://127.0.0.1:${mainnet}`, "getGenesisHash")).toBe(
      "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    );
    expect(Number(await rpc(`http://127.0.0.1:${sepolia}`, "eth_chainId"))).toBe(84532);
    expect(Number(await rpc(`http://127.0.0.1:${base}`, "eth_chainId"))).toBe(8453);
    expect(run.stderr()).toContain(`localnet fund <fee payer address> --sol 10 --rpc http://127.0.0.1:${devnet}`);
    expect(run.stderr()).toContain(
      `localnet fund <EVM gas payer 0x address> --eth 1 --rpc http://127.0.0.1:${sepolia}`,
    );

    // A gas payer is funded with ETH only: no test USDC reaches it unless --usdc is given.
    const payer = privateKeyToAccount(generatePrivateKey()).address;
    const funded = await runSignet(
      ["localnet", "fund", payer, "--eth", "1", "--rpc", `http://127.0.0.1:${sepolia}`],
      tempDataDir(),
      60_000,
    );
    expect(funded.code, funded.stderr).toBe(0);
    expect(JSON.parse(funded.stdout)).toEqual({ owner: payer, usdcUnits: "0", wei: String(10n ** 18n) });
    const client = createPublicClient({ transport: http(`http://127.0.0.1:${sepolia}`) });
    expect(await client.getBalance({ address: payer })).toBe(10n ** 18n);
    expect(
      await client.readContract({
        address: USDC_BY_EVM_CHAIN[84532]!.address,
        abi: EIP3009_USDC_ABI as Abi,
        functionName: "balanceOf",
        args: [payer],
      }),
    ).toBe(0n);

    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toContain("signet localnet: stopping the chains");
    for (const port of [devnet, mainnet, sepolia, base])
      await expect(fetch(`http://127.0.0.1:${port}`, { method: "POST" })).rejects.toThrow();
  });

  it("refuses a port another server holds: exit 2, one line naming the chain and the port, nothing left running", async () => {
    const holder = await startServer((_req, _body, res) => res.end());
    try {
      const port = new URL(holder.url).port;
      const run = await start(["--solana-port", port, "--evm-port", "0"]);
      expect(await run.exited).toBe(2);
      expect(run.stdout()).toBe("");
      expect(run.stderr().trim().split("\n").at(-1)).toBe(
        `signet: the local chain playing Solana devnet cannot listen on port ${port}: the port is taken (is npm run dev running? choose another with the chain's --*-port option)`,
      );
    } finally {
      await holder.close();
    }
  });

  it.each([
    [
      ["--solana-port", "88a"],
      "signet: --solana-port must be a port number (1-65535), or 0 to leave that chain out; got 88a",
    ],
    [
      ["--evm-port", "70000"],
      "signet: --evm-port must be a port number (1-65535), or 0 to leave that chain out; got 70000",
    ],
    [
      [
        "--solana-port",
        "0",
        "--solana-mainnet-port",
        "0",
        "--evm-port",
        "0",
        "--base-port",
        "0",
        "--polygon-amoy-port",
        "0",
        "--avalanche-fuji-port",
        "0",
      ],
      "signet: every chain's port is 0: give at least one chain a port (--solana-port, --solana-mainnet-port, --evm-port, --base-port, --polygon-amoy-port, --avalanche-fuji-port)",
    ],
    [
      ["--solana-port", "18001", "--evm-port", "18001"],
      "signet: two chains cannot share port 18001: give each its own",
    ],
    [["extra"], "signet: unexpected argument extra for signet localnet start"],
  ])("rejects malformed input %j with one line and exit 2, starting nothing", async (args, line) => {
    const run = await start(args);
    expect(await run.exited).toBe(2);
    expect(run.stdout()).toBe("");
    expect(run.stderr().trim()).toBe(line);
  });

  it("rejects malformed input: a dev-tool variable the chains read, named on one line", async () => {
    const run = await start(["--solana-port", String(await closedPort())], { LOCALNET_TIMING: "sometimes" });
    expect(await run.exited).toBe(2);
    expect(run.stdout()).toBe("");
    expect(run.stderr().trim()).toMatch(/^signet: invalid environment: LOCALNET_TIMING: \S/);
  });
});
