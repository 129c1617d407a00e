// The local chains as `npm run dev` and `signet localnet start` run them, on loopback: a Solana chain playing devnet
// and, on its own port, one playing mainnet (devtools/localnet); anvil playing Base Sepolia and, on its own port, Base
// (devtools/anvil). Each keeps its state in the data dir across restarts. Both entry points start them here, so a
// staging server meets the same chains a dev server does.
import path from "node:path";
import { rpcUrlVariable } from "../server/env";
import { SHIPPED_NETWORKS, type NetworkId } from "../server/verify";
import { startLocalEvmChain, type LocalEvmChain } from "./anvil";
import type { DevtoolsEnv } from "./devtools-env";
import { startLocalnet, type Localnet } from "./localnet";

/** Where each chain listens; 0 leaves that chain out. */
export interface LocalChainPorts {
  solanaDevnet: number;
  solanaMainnet: number;
  baseSepolia: number;
  base: number;
}

/** The RPC URL of each local chain running, by the id of the network it plays. */
export type LocalChainUrls = Partial<Record<NetworkId, string>>;

export interface LocalChains {
  /** The Solana chains started: devnet's first. */
  solana: Localnet[];
  /** The anvil chains started: Base Sepolia's first. */
  evm: LocalEvmChain[];
  urls: LocalChainUrls;
  /** Stops every chain (each writes its state to the data dir). */
  close(): Promise<void>;
}

export interface StartLocalChainsOptions {
  ports: LocalChainPorts;
  /** Where the chains keep their state (`npm run dev`'s data dir). */
  dataDir: string;
  /** Timing and faults, from LOCALNET_TIMING, LOCALNET_SLOT_MS, LOCALNET_FAULTS, ANVIL_BLOCK_TIME_SEC and ANVIL_FAULTS. */
  timing: Pick<DevtoolsEnv, "LOCALNET_TIMING" | "LOCALNET_SLOT_MS" | "LOCALNET_FAULTS" | "ANVIL_BLOCK_TIME_SEC" | "ANVIL_FAULTS">;
  /** One line per chain started (and its timing). */
  log: (line: string) => void;
}

/** The chains only ever listen on loopback: each mints USDC to whoever asks it over RPC. */
const HOST = "127.0.0.1";

/** Each chain: the port option that starts it and the network it plays (its chain id and USDC come from the network's row). */
const SOLANA_CHAINS = [
  { port: "solanaDevnet", network: "solana-devnet", profile: "devnet", name: "Solana devnet", label: "Solana devnet (SIMULATED, not the real devnet)" },
  { port: "solanaMainnet", network: "solana-mainnet", profile: "mainnet", name: "Solana mainnet", label: "Solana mainnet (SIMULATED)" },
] as const;
const EVM_CHAINS = [
  { port: "baseSepolia", network: "base-sepolia", label: "Base Sepolia" },
  { port: "base", network: "base", label: "Base mainnet" },
] as const;

/**
 * Starts every chain whose port is not 0 and resolves once each answers RPC. When one cannot start (its port taken),
 * the ones already started are stopped and the error names the chain and its port.
 */
export async function startLocalChains(opts: StartLocalChainsOptions): Promise<LocalChains> {
  const { timing, log } = opts;
  const solana: Localnet[] = [];
  const evm: LocalEvmChain[] = [];
  const urls: LocalChainUrls = {};
  const close = async () => {
    await Promise.allSettled([...solana.map((c) => c.close()), ...evm.map((c) => c.close())]);
  };
  const localnetTiming = { timing: timing.LOCALNET_TIMING, slotMs: timing.LOCALNET_SLOT_MS, faults: timing.LOCALNET_FAULTS };
  if (opts.ports.solanaDevnet > 0 || opts.ports.solanaMainnet > 0) {
    log(`local Solana timing: ${timing.LOCALNET_TIMING}${timing.LOCALNET_TIMING === "real" ? ` (${timing.LOCALNET_SLOT_MS} ms slots)` : ""}${timing.LOCALNET_FAULTS ? `, faults seeded ${timing.LOCALNET_FAULTS.seed}` : ""}`);
  }
  if (opts.ports.baseSepolia > 0 || opts.ports.base > 0) log(`local anvil timing: ${timing.ANVIL_BLOCK_TIME_SEC > 0 ? `a block every ${timing.ANVIL_BLOCK_TIME_SEC} s` : "automine"}`);
  try {
    for (const want of SOLANA_CHAINS) {
      const port = opts.ports[want.port];
      if (port === 0) continue;
      const chain = await startLocalnet({ profile: want.profile, host: HOST, port, dataDir: opts.dataDir, ...localnetTiming }).catch((err: unknown) => {
        throw startFailure(`the local chain playing ${want.name}`, port, err);
      });
      solana.push(chain);
      urls[want.network] = chain.url;
      log(`local chain playing ${want.label} at ${chain.url}`);
    }
    for (const want of EVM_CHAINS) {
      const port = opts.ports[want.port];
      if (port === 0) continue;
      const row = SHIPPED_NETWORKS.get(want.network);
      if (row.family !== "evm") throw new Error(`${want.network} is not an EVM network`);
      const chain = await startLocalEvmChain({
        chainId: row.chainId,
        port,
        host: HOST,
        usdc: row.usdcAsset as `0x${string}`,
        name: row.eip712.name,
        version: row.eip712.version,
        // Kept across restarts, like the Solana chains, so yesterday's Base receipts still verify.
        stateFile: path.join(opts.dataDir, `anvil-${row.chainId}.json`),
        // 2 s blocks (Base's) by default, 0 = automine; with faults, the fault proxy takes the chain's port.
        blockTimeSec: timing.ANVIL_BLOCK_TIME_SEC,
        faults: timing.ANVIL_FAULTS,
      }).catch((err: unknown) => {
        throw startFailure(`the local anvil chain playing ${want.label}`, port, err);
      });
      evm.push(chain);
      urls[want.network] = chain.url;
      log(`local anvil chain playing ${want.label} (SIMULATED, chain id ${row.chainId}, test USDC at ${row.usdcAsset}) at ${chain.url}`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { solana, evm, urls, close };
}

/**
 * What a server in production mode (`npm start`) needs to use these chains: each chain's RPC variable, the hosted
 * verifier let onto loopback (production refuses private addresses by default) and the RPCs advertised to the explorer
 * and the CLI (production advertises none by default). The local chains carry no provider keys, so neither exposes one.
 */
export function localChainServerEnv(urls: LocalChainUrls): Record<string, string> {
  const rpcs = Object.fromEntries(Object.entries(stripUndefined(urls)).map(([id, url]) => [rpcUrlVariable(id), url]));
  return { ...rpcs, VERIFIER_ALLOW_PRIVATE_NETWORKS: "true", EXPLORER_ADVERTISE_RPC: "true" };
}

function stripUndefined(urls: LocalChainUrls): Record<string, string> {
  return Object.fromEntries(Object.entries(urls).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** A chain that did not start: `portTaken` when another process holds its port, the one failure a caller can cure. */
export class LocalChainStartError extends Error {
  override name = "LocalChainStartError";
  constructor(
    message: string,
    readonly port: number,
    readonly portTaken: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

function startFailure(chain: string, port: number, err: unknown): LocalChainStartError {
  const reason = err instanceof Error ? err.message.split("\n")[0]! : String(err);
  // Node's listen says EADDRINUSE; anvil exits saying so on its stderr, which its error carries.
  const taken = (err as NodeJS.ErrnoException | null)?.code === "EADDRINUSE" || /address already in use/i.test(reason);
  const message = taken ? `${chain} cannot listen on port ${port}: the port is taken` : `${chain} did not start on port ${port}: ${reason}`;
  return new LocalChainStartError(message, port, taken, { cause: err });
}
