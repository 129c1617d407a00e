// The local chains as `npm run dev` and `signet localnet start` run them, on loopback: one per network given a port,
// playing that network from its row. Solana networks get a local chain forging the network's genesis hash and USDC
// (devtools/localnet), EVM networks anvil at the row's chain id with test USDC at the row's address under its EIP-712
// domain (devtools/anvil). Each keeps its state in the data dir across restarts. Both entry points start them here, so a
// staging server meets the same chains a dev server does.
import path from "node:path";
import { rpcUrlVariable } from "../server/env";
import {
  SHIPPED_NETWORKS,
  type EvmNetworkRow,
  type NetworkId,
  type NetworkRegistry,
  type NetworkRow,
} from "../server/verify";
import { startLocalEvmChain, type LocalEvmChain } from "./anvil";
import type { DevtoolsEnv } from "./devtools-env";
import { startLocalnet, type Localnet } from "./localnet";
import { PROFILES, type LocalnetProfile } from "./localnet/profiles";

/** Where each chain listens, by the id of the network it plays; 0 (or no entry) leaves that chain out. */
export type LocalChainPorts = Partial<Record<NetworkId, number>>;

/** The RPC URL of each local chain running, by the id of the network it plays. */
export type LocalChainUrls = Partial<Record<NetworkId, string>>;

export interface LocalChains {
  /** The Solana chains started, in the registry's order. */
  solana: Localnet[];
  /** The anvil chains started, in the registry's order. */
  evm: LocalEvmChain[];
  urls: LocalChainUrls;
  /** Stops every chain (each writes its state to the data dir). */
  close(): Promise<void>;
}

export interface StartLocalChainsOptions {
  ports: LocalChainPorts;
  /** The networks the chains play (default: this release's); a port for an id it does not hold is refused. */
  networks?: NetworkRegistry;
  /** Where the chains keep their state (`npm run dev`'s data dir). */
  dataDir: string;
  /** Timing and faults, from LOCALNET_TIMING, LOCALNET_SLOT_MS, LOCALNET_FAULTS, ANVIL_BLOCK_TIME_SEC and ANVIL_FAULTS. */
  timing: Pick<
    DevtoolsEnv,
    "LOCALNET_TIMING" | "LOCALNET_SLOT_MS" | "LOCALNET_FAULTS" | "ANVIL_BLOCK_TIME_SEC" | "ANVIL_FAULTS"
  >;
  /** One line per chain started (and its timing). */
  log: (line: string) => void;
}

/** The chains only ever listen on loopback: each mints USDC to whoever asks it over RPC. */
const HOST = "127.0.0.1";

/** The local Solana chain profile that forges `row`'s network (its genesis hash, hence its CAIP-2 id), or null. */
function solanaProfileOf(row: NetworkRow): LocalnetProfile | null {
  const found = (Object.entries(PROFILES) as [LocalnetProfile, (typeof PROFILES)[LocalnetProfile]][]).find(
    ([, p]) => p.caip2 === row.caip2,
  );
  return found ? found[0] : null;
}

/**
 * Starts a chain for every network whose port is not 0 and resolves once each answers RPC; the anvil chains start side
 * by side (each costs about a second). When one cannot start (its port taken), the ones already started are stopped and
 * the error names the chain and its port.
 */
export async function startLocalChains(opts: StartLocalChainsOptions): Promise<LocalChains> {
  const { timing, log } = opts;
  const networks = opts.networks ?? SHIPPED_NETWORKS;
  for (const id of Object.keys(opts.ports)) {
    if (!networks.byId(id))
      throw new Error(`no network ${JSON.stringify(id)} to start a local chain for (${networks.ids.join(", ")})`);
  }
  const wanted = (row: NetworkRow) => (opts.ports[row.id] ?? 0) > 0;
  const solanaRows = networks.ofFamily("svm").filter(wanted);
  const evmRows = (networks.ofFamily("evm") as readonly EvmNetworkRow[]).filter(wanted);
  const solana: Localnet[] = [];
  const evm: LocalEvmChain[] = [];
  const urls: LocalChainUrls = {};
  const close = async () => {
    await Promise.allSettled([...solana.map((c) => c.close()), ...evm.map((c) => c.close())]);
  };
  const localnetTiming = {
    timing: timing.LOCALNET_TIMING,
    slotMs: timing.LOCALNET_SLOT_MS,
    faults: timing.LOCALNET_FAULTS,
  };
  if (solanaRows.length > 0) {
    log(
      `local Solana timing: ${timing.LOCALNET_TIMING}${timing.LOCALNET_TIMING === "real" ? ` (${timing.LOCALNET_SLOT_MS} ms slots)` : ""}${timing.LOCALNET_FAULTS ? `, faults seeded ${timing.LOCALNET_FAULTS.seed}` : ""}`,
    );
  }
  if (evmRows.length > 0)
    log(
      `local anvil timing: ${timing.ANVIL_BLOCK_TIME_SEC > 0 ? `a block every ${timing.ANVIL_BLOCK_TIME_SEC} s` : "automine"}`,
    );
  try {
    for (const row of solanaRows) {
      const port = opts.ports[row.id]!;
      const profile = solanaProfileOf(row);
      if (profile === null)
        throw new Error(
          `no local Solana chain can play ${row.label} (${row.caip2}): its genesis hash is not one devtools/localnet forges`,
        );
      const chain = await startLocalnet({ profile, host: HOST, port, dataDir: opts.dataDir, ...localnetTiming }).catch(
        (err: unknown) => {
          throw startFailure(`the local chain playing ${row.label}`, port, err);
        },
      );
      solana.push(chain);
      urls[row.id] = chain.url;
      log(`local chain playing ${row.label} (SIMULATED, not the real network) at ${chain.url}`);
    }
    const started = await Promise.allSettled(
      evmRows.map(async (row) => {
        const port = opts.ports[row.id]!;
        return startLocalEvmChain({
          chainId: row.chainId,
          port,
          host: HOST,
          usdc: row.usdcAsset as `0x${string}`,
          name: row.eip712.name,
          version: row.eip712.version,
          // Kept across restarts, like the Solana chains, so yesterday's receipts still verify.
          stateFile: path.join(opts.dataDir, `anvil-${row.chainId}.json`),
          // 2 s blocks by default, 0 = automine; with faults, the fault proxy takes the chain's port.
          blockTimeSec: timing.ANVIL_BLOCK_TIME_SEC,
          faults: timing.ANVIL_FAULTS,
        }).catch((err: unknown) => {
          throw startFailure(`the local anvil chain playing ${row.label}`, port, err);
        });
      }),
    );
    for (const result of started) if (result.status === "fulfilled") evm.push(result.value);
    const failed = started.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    for (const [i, row] of evmRows.entries()) {
      const chain = evm[i]!;
      urls[row.id] = chain.url;
      log(
        `local anvil chain playing ${row.label} (SIMULATED, chain id ${row.chainId}, test USDC at ${row.usdcAsset}) at ${chain.url}`,
      );
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
  const message = taken
    ? `${chain} cannot listen on port ${port}: the port is taken`
    : `${chain} did not start on port ${port}: ${reason}`;
  return new LocalChainStartError(message, port, taken, { cause: err });
}
