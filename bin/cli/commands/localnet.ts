// `signet localnet start` and `signet localnet fund`: the local dev chains (never production).
// - start: runs the chains `npm run dev` runs, alone (devtools/start-local-chains.ts), on the ports given, and prints
//   the variables a production-mode server needs to use them, until interrupted: a staging server pays on them.
// - fund <pubkey|0x…> [--usdc N] [--sol N] [--eth N]: a base58 key is funded on the local Solana chain (airdropped
//   SOL, its USDC account created and minted); a 0x address on the local anvil chain playing Base Sepolia, or the one
//   --rpc names (ETH added, the USDC of the configured network of its chain id minted). Only what is asked for moves:
//   USDC minted to a deposit address would reach it with no payment.
import { parseArgs } from "node:util";
import { createPublicClient, http } from "viem";
import { isEvmRow } from "../../../server/verify/chain-family-facts";
import { isBase58PublicKey, parseUsdcToUnits } from "../../../server/verify";
import { cliConfig, UsageError } from "../cli-support";
import { LOCALNET_USAGE } from "./usage";
import { fundEvmAccount } from "../../../devtools/anvil";
import type { LocalChainPorts } from "../../../devtools/start-local-chains";
import type { NetworkId } from "../../../server/verify";

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Runs the command; returns the exit code. */
export async function runLocalnet(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === "start") return runStart(rest);
  if (action !== "fund")
    throw new UsageError(
      `${action === undefined ? "signet localnet takes" : `unknown localnet action ${action}:`} start or fund (signet localnet --help)`,
    );
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { usdc: { type: "string" }, sol: { type: "string" }, eth: { type: "string" }, rpc: { type: "string" } },
  });
  const owner = positionals[0];
  const evm = owner !== undefined && /^0x[0-9a-fA-F]{40}$/.test(owner);
  if (!owner || (!evm && !isBase58PublicKey(owner)))
    throw new UsageError(`a base58 public key or a 0x address is required\nusage: ${LOCALNET_USAGE}`);
  if (evm && values.sol !== undefined)
    throw new UsageError("--sol funds a Solana key on the local Solana chain; a 0x address takes --eth");
  if (!evm && values.eth !== undefined)
    throw new UsageError("--eth funds a 0x address on the local Base chain; a Solana key takes --sol");
  // Nothing is funded by default: each amount is asked for by its option.
  if ((evm ? (values.usdc ?? values.eth) : (values.usdc ?? values.sol)) === undefined)
    throw new UsageError(`nothing to fund: give ${evm ? "--usdc N and/or --eth N" : "--usdc N and/or --sol N"}`);
  if (evm)
    return fundEvm(owner as `0x${string}`, { usdc: values.usdc ?? "0", eth: values.eth ?? "0", rpc: values.rpc });
  const usdcUnits = parseUsdcToUnits(values.usdc ?? "0");
  const solUnits = parseUsdcToUnits(values.sol ?? "0"); // SOL has 9 decimals: parse as a decimal, then scale
  if (usdcUnits === null) throw new UsageError("--usdc must be a non-negative amount with at most 6 decimals");
  if (solUnits === null) throw new UsageError("--sol must be a non-negative amount with at most 6 decimals");
  const lamports = (solUnits * LAMPORTS_PER_SOL) / 1_000_000n;
  const rpc = values.rpc ?? (await cliConfig()).rpcUrls["solana-devnet"];
  if (!rpc) throw new UsageError("no local chain RPC known; pass --rpc");
  const res = await fetch(rpc, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "localnet_fund",
      params: [owner, { usdcUnits: usdcUnits.toString(), lamports: lamports.toString() }],
    }),
  }).catch(() => {
    throw new UsageError(
      `the local chain at ${rpc} is not reachable (is npm run dev or signet localnet start running?)`,
    );
  });
  const body = (await res.json().catch(() => null)) as { result?: unknown; error?: { message?: string } } | null;
  if (!body || body.error)
    throw new UsageError(
      `funding failed: ${body?.error?.message ?? `HTTP ${res.status}`} (only the local chain can fund)`,
    );
  process.stdout.write(`${JSON.stringify(body.result)}\n`);
  return 0;
}

async function fundEvm(
  owner: `0x${string}`,
  values: { usdc: string; eth: string; rpc?: string | undefined },
): Promise<number> {
  const usdcUnits = parseUsdcToUnits(values.usdc);
  const ethMicro = parseUsdcToUnits(values.eth); // ETH has 18 decimals: parse as a 6-decimal amount, then scale
  if (usdcUnits === null) throw new UsageError("--usdc must be a non-negative amount with at most 6 decimals");
  if (ethMicro === null) throw new UsageError("--eth must be a non-negative amount with at most 6 decimals");
  const cfg = await cliConfig();
  const rpc = values.rpc ?? cfg.rpcUrls["base-sepolia"];
  if (!rpc) throw new UsageError("no local anvil RPC known; pass --rpc");
  try {
    // The token is the USDC of the configured network the chain plays (by its chain id), a network added by a row too.
    const chainId = await createPublicClient({ transport: http(rpc) }).getChainId();
    const row = cfg.networks.rows.filter(isEvmRow).find((r) => r.chainId === chainId);
    if (!row) throw new Error(`chain ${chainId} plays no EVM network this service is configured with`);
    await fundEvmAccount(rpc, owner, { usdcUnits, wei: ethMicro * 1_000_000_000_000n }, row.usdcAsset as `0x${string}`);
  } catch (err) {
    throw new UsageError(
      `funding ${owner} at ${rpc} failed (is npm run dev or signet localnet start running? only a local anvil chain can fund): ${(err as Error).message.split("\n")[0]}`,
    );
  }
  process.stdout.write(
    `${JSON.stringify({ owner, usdcUnits: usdcUnits.toString(), wei: (ethMicro * 1_000_000_000_000n).toString() })}\n`,
  );
  return 0;
}

/** The port options of `localnet start`, each with the network whose chain it starts. */
const PORT_OPTIONS = {
  "solana-port": "solana-devnet",
  "solana-mainnet-port": "solana-mainnet",
  "evm-port": "base-sepolia",
  "base-port": "base",
  "polygon-amoy-port": "polygon-amoy",
  "avalanche-fuji-port": "avalanche-fuji",
} as const satisfies Record<string, NetworkId>;

/** A port option's value: a whole number 0–65535 (0 leaves that chain out), or `fallback` when not given. */
function portOption(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535)
    throw new UsageError(`--${option} must be a port number (1-65535), or 0 to leave that chain out; got ${value}`);
  return Number(value);
}

/** `signet localnet start`: the chains, until SIGINT or SIGTERM; 0 once they stopped. */
async function runStart(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(Object.keys(PORT_OPTIONS).map((o) => [o, { type: "string" }])) as Record<
      keyof typeof PORT_OPTIONS,
      { type: "string" }
    >,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]} for signet localnet start`);
  const cfg = await cliConfig();
  // Without an option, each chain's port is the one `npm run dev` gives it (its LOCALNET_* variable).
  const { localChainPorts } = await import("../../../server/env");
  const defaults: LocalChainPorts = localChainPorts(cfg);
  const ports = { ...defaults };
  for (const [option, network] of Object.entries(PORT_OPTIONS) as [keyof typeof PORT_OPTIONS, NetworkId][])
    ports[network] = portOption(values[option], option, defaults[network] ?? 0);
  const used = Object.values(ports).filter((p): p is number => p !== undefined && p > 0);
  if (used.length === 0)
    throw new UsageError(
      `every chain's port is 0: give at least one chain a port (${Object.keys(PORT_OPTIONS)
        .map((o) => `--${o}`)
        .join(", ")})`,
    );
  const shared = used.find((p, i) => used.indexOf(p) !== i);
  if (shared !== undefined) throw new UsageError(`two chains cannot share port ${shared}: give each its own`);

  const { LocalChainStartError, startLocalChains, localChainServerEnv } =
    await import("../../../devtools/start-local-chains");
  const { DevtoolsEnvError, loadDevtoolsEnv } = await import("../../../devtools/devtools-env");
  const say = (line: string) => process.stderr.write(`signet localnet: ${line}\n`);
  let timing;
  try {
    // Timing and faults as `npm run dev` reads them: LOCALNET_TIMING, LOCALNET_SLOT_MS, LOCALNET_FAULTS, ANVIL_*.
    timing = loadDevtoolsEnv(process.env);
  } catch (err) {
    if (err instanceof DevtoolsEnvError) throw new UsageError(err.message.replace(/:?\n\s*/g, ": "));
    throw err;
  }
  let chains;
  try {
    chains = await startLocalChains({ ports, networks: cfg.networks, dataDir: cfg.dataDir, timing, log: say });
  } catch (err) {
    if (!(err instanceof LocalChainStartError)) throw err;
    throw new UsageError(
      `${err.message}${err.portTaken ? " (is npm run dev running? choose another with the chain's --*-port option)" : ""}`,
    );
  }
  // stdout is the environment, one KEY=value a line, for a production-mode server (`npm start`) to use these chains.
  for (const [name, value] of Object.entries(localChainServerEnv(chains.urls)))
    process.stdout.write(`${name}=${value}\n`);
  say(
    `ready; state kept in ${cfg.dataDir}. A server in production mode uses these chains with the variables above (stdout).`,
  );
  say(
    "its fee payer (FACILITATOR_SECRET_KEY's address) needs SOL on each Solana chain, and its EVM gas payer ETH on each anvil chain:",
  );
  for (const chain of chains.solana)
    say(`  npm run -s signet -- localnet fund <fee payer address> --sol 10 --rpc ${chain.url}`);
  for (const chain of chains.evm)
    say(`  npm run -s signet -- localnet fund <EVM gas payer 0x address> --eth 1 --rpc ${chain.url}`);
  say("an agent pays with USDC it is given the same way (--usdc N). Ctrl-C stops the chains.");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  say("stopping the chains");
  await chains.close();
  return 0;
}
