// A local EVM chain for tests and development: anvil playing an EVM network (Base Sepolia, Base) at its chain id, with a test USDC
// (ERC-20 + EIP-3009, FiatToken's revert reasons) planted at the real USDC address and Multicall3 at its canonical one,
// so the stock x402 EVM client and facilitator pay and settle on it unchanged.
import "server-only";
import {
  createTestClient,
  defineChain,
  getAddress,
  http,
  isAddress,
  publicActions,
  walletActions,
  type Abi,
  type Hex,
} from "viem";
import usdcArtifact from "./eip3009-usdc.artifact.json" with { type: "json" };
import multicallArtifact from "./multicall3.artifact.json" with { type: "json" };
import { spawnAnvil } from "./spawn-anvil";
import { startFaultProxy, type FaultProxy } from "./fault-proxy";
import {
  FaultDice,
  type FaultEvent,
  type FaultKind,
  type FaultProfileInput,
  type RequestLogEntry,
} from "../localnet/fault-profile";
import { SHIPPED_NETWORKS } from "../../server/verify";
import { isEvmRow } from "../../server/verify/chain-family-facts";

/** The test token's ABI: ERC-20, EIP-3009 (both signature forms), EIP-5267, and the dev-only initialize and mint. */
export const EIP3009_USDC_ABI = usdcArtifact.abi as Abi;

/** A chain's USDC: where it is and the EIP-712 domain its FiatToken signs under. */
export interface EvmUsdc {
  address: `0x${string}`;
  name: string;
  version: string;
}

/** USDC on the EVM chains the harness can play, by chain id: every EVM network's row. */
export const USDC_BY_EVM_CHAIN: Readonly<Record<number, EvmUsdc>> = Object.fromEntries(
  SHIPPED_NETWORKS.rows
    .filter(isEvmRow)
    .map((n) => [n.chainId, { address: n.usdcAsset as `0x${string}`, ...n.eip712 }]),
);

/** Where every Base chain has Multicall3; @x402/evm's facilitator reads through it to name a failed authorization. */
const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * The token's minter: an address with no known key (keccak256("signet test USDC minter")), reached only by
 * impersonation, so no account a test uses as payer or relayer ever shares its transaction nonces.
 */
const MINTER = "0x0F6e711C61320862A3c0A47F39F3D406F5396B3F";
/** Gas money for the minter: anvil charges gas even to impersonated accounts. */
const MINTER_WEI = 10n ** 18n;
/** Base makes a block every 2 s: the block time a real-timing local Base chain uses. */
export const BASE_BLOCK_TIME_SEC = 2;
/** How often viem polls for receipts: a small fraction of a block, so a wait ends soon after the block that mines it. */
const POLLING_INTERVAL_MS = 50;

export interface LocalEvmChain {
  /** http://127.0.0.1:<port>: anvil itself, or the fault proxy in front of it when a fault profile is set. */
  url: string;
  /** anvil itself, which no fault touches (what the harness funds through). */
  faultFreeUrl: string;
  /** The faults dealt so far; null without a fault profile. */
  faultLog(): { events: FaultEvent[]; counts: Record<FaultKind, number> } | null;
  /** Every request the fault proxy judged (arrival time, method, fate); null without a fault profile. */
  requestLog(): RequestLogEntry[] | null;
  chainId: number;
  /** The planted token's address. */
  usdc: `0x${string}`;
  /** Mints `usdcUnits` (6 decimals) of the token to `to` and adds `wei` to its ETH balance. */
  fund(to: `0x${string}`, opts: { usdcUnits?: bigint; wei?: bigint }): Promise<void>;
  usdcBalance(owner: `0x${string}`): Promise<bigint>;
  /** Stops anvil and waits for it to exit. */
  close(): Promise<void>;
}

export interface StartLocalEvmChainOptions {
  /** The chain id of the network played (its row's). */
  chainId: number;
  /** 0 (the default) lets anvil pick a free port. */
  port?: number;
  host?: string;
  /** Where to plant the token: the real USDC address of the chain played (see USDC_BY_EVM_CHAIN). */
  usdc: `0x${string}`;
  /** The token's EIP-712 domain name and version, which x402 requirements carry in `extra`. */
  name: string;
  version: string;
  /** Keeps the chain across restarts in this file (`npm run dev`); without it the chain starts empty. */
  stateFile?: string;
  /**
   * Interval mining: a block every this many seconds, and a sent transaction waits in the mempool until the next one.
   * Default BASE_BLOCK_TIME_SEC (Base's 2 s). 0 asks explicitly for automine: a block per transaction, at once.
   */
  blockTimeSec?: number;
  /**
   * Interval mining faster than Base, for tests that do not measure block timing: a block every this many ms (over
   * `blockTimeSec`). A sent transaction still waits in the mempool for the next block.
   */
  blockTimeMs?: number;
  /** A seeded fault profile (see ../localnet/fault-profile.ts) played by a proxy in front of anvil; none by default. */
  faults?: FaultProfileInput | null;
}

/** Starts anvil, plants and initializes the test USDC at `opts.usdc`, and resolves once it can be paid with. */
export async function startLocalEvmChain(opts: StartLocalEvmChainOptions): Promise<LocalEvmChain> {
  if (!(Number.isSafeInteger(opts.chainId) && opts.chainId > 0))
    throw new Error(`chainId must be a positive whole number, got ${String(opts.chainId)}`);
  if (!isAddress(opts.usdc, { strict: false })) throw new Error(`usdc is not an address: ${String(opts.usdc)}`);
  if (!opts.name || !opts.version) throw new Error("the token's EIP-712 name and version must not be empty");
  const usdc = getAddress(opts.usdc);
  const blockTimeSec = opts.blockTimeSec ?? BASE_BLOCK_TIME_SEC;
  if (!(Number.isInteger(blockTimeSec) && blockTimeSec >= 0))
    throw new Error(`blockTimeSec must be a whole number of seconds (0 = automine), got ${String(blockTimeSec)}`);
  if (opts.blockTimeMs !== undefined && !(Number.isInteger(opts.blockTimeMs) && opts.blockTimeMs > 0))
    throw new Error(`blockTimeMs must be a positive whole number of ms, got ${String(opts.blockTimeMs)}`);

  const host = opts.host ?? "127.0.0.1";
  const dice = opts.faults ? new FaultDice(opts.faults) : null;
  // With faults, the proxy takes the asked-for port and anvil sits behind it on a free one.
  const anvil = await spawnAnvil({
    host,
    port: dice ? 0 : (opts.port ?? 0),
    chainId: opts.chainId,
    ...(opts.stateFile ? { stateFile: opts.stateFile } : {}),
    ...(opts.blockTimeMs !== undefined
      ? { blockTimeMs: opts.blockTimeMs }
      : blockTimeSec > 0
        ? { blockTimeMs: blockTimeSec * 1000 }
        : {}),
  });
  let proxy: FaultProxy | null = null;
  try {
    const chain = defineChain({
      id: opts.chainId,
      name: `local anvil (${opts.chainId})`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    });
    const client = createTestClient({
      mode: "anvil",
      chain,
      transport: http(anvil.url),
      pollingInterval: POLLING_INTERVAL_MS,
    })
      .extend(publicActions)
      .extend(walletActions);

    /** Sends a token call from the minter and throws unless it succeeded. */
    const asMinter = async (functionName: "initialize" | "mint", args: readonly unknown[]) => {
      const hash = await client.writeContract({
        account: MINTER,
        chain,
        address: usdc,
        abi: EIP3009_USDC_ABI,
        functionName,
        args,
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`test USDC ${functionName} reverted (tx ${hash})`);
    };

    // Planted code runs no constructor: initialize() stores the domain and minter in the same start-up.
    await client.setCode({ address: MULTICALL3_ADDRESS, bytecode: multicallArtifact.deployedBytecode as Hex });
    await client.setCode({ address: usdc, bytecode: usdcArtifact.deployedBytecode as Hex });
    await client.impersonateAccount({ address: MINTER });
    await client.setBalance({ address: MINTER, value: MINTER_WEI });
    // A chain restored from its state file keeps the token's storage: initialize only a fresh one.
    const restoredName = (await client.readContract({
      address: usdc,
      abi: EIP3009_USDC_ABI,
      functionName: "name",
    })) as string;
    if (restoredName === "") await asMinter("initialize", [opts.name, opts.version, MINTER]);
    else if (restoredName !== opts.name)
      throw new Error(`the restored chain's token is named "${restoredName}", not "${opts.name}"`);

    if (dice) proxy = await startFaultProxy(anvil.url, dice, host, opts.port ?? 0);
    return {
      url: proxy?.url ?? anvil.url,
      faultFreeUrl: anvil.url,
      faultLog: () => dice?.log() ?? null,
      requestLog: () => dice?.requestLog() ?? null,
      chainId: opts.chainId,
      usdc,
      // The token this chain planted, whatever network it plays (a test's own row included).
      fund: (to, amounts) => fundEvmAccount(anvil.url, to, amounts, usdc),
      async usdcBalance(owner) {
        return (await client.readContract({
          address: usdc,
          abi: EIP3009_USDC_ABI,
          functionName: "balanceOf",
          args: [owner],
        })) as bigint;
      },
      async close() {
        await proxy?.close();
        await anvil.stop();
      },
    };
  } catch (err) {
    await proxy?.close();
    await anvil.stop();
    throw err;
  }
}

/**
 * Funds `to` on a running local anvil chain (this harness's, or `npm run dev`'s), through its URL: mints test USDC as
 * the minter and adds ETH. Used by `signet localnet fund 0x…`. The token is `usdc` when given, else the one the
 * shipped network of the chain's id plants.
 */
export async function fundEvmAccount(
  url: string,
  to: `0x${string}`,
  { usdcUnits, wei }: { usdcUnits?: bigint; wei?: bigint },
  usdc?: `0x${string}`,
): Promise<void> {
  if (!isAddress(to, { strict: false })) throw new Error(`fund: not an address: ${String(to)}`);
  if ((usdcUnits ?? 0n) < 0n || (wei ?? 0n) < 0n) throw new Error("fund: amounts must not be negative");
  const probe = createTestClient({ mode: "anvil", transport: http(url) }).extend(publicActions);
  const chainId = await probe.getChainId();
  const token = usdc ? { address: getAddress(usdc) } : USDC_BY_EVM_CHAIN[chainId];
  if (!token)
    throw new Error(
      `chain ${chainId} at ${url} plays no EVM network this release knows (${Object.keys(USDC_BY_EVM_CHAIN).join(", ")})`,
    );
  const chain = defineChain({
    id: chainId,
    name: `local anvil (${chainId})`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = createTestClient({ mode: "anvil", chain, transport: http(url), pollingInterval: POLLING_INTERVAL_MS })
    .extend(publicActions)
    .extend(walletActions);
  if (usdcUnits) {
    await client.impersonateAccount({ address: MINTER });
    const hash = await client.writeContract({
      account: MINTER,
      chain,
      address: token.address,
      abi: EIP3009_USDC_ABI,
      functionName: "mint",
      args: [getAddress(to), usdcUnits],
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`test USDC mint reverted (tx ${hash})`);
  }
  if (wei) {
    const balance = await client.getBalance({ address: to });
    await client.setBalance({ address: to, value: balance + wei });
  }
}
