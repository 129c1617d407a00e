// The local Solana chain `npm run dev` and the tests run: a LocalChain behind its JSON-RPC server.
import "server-only";
import { DEFAULT_SLOT_MS, LocalChain, type ChainClock } from "./local-chain";
import { serveRpc } from "./rpc-server";
import { FaultDice, type FaultProfileInput } from "./fault-profile";
import type { LocalnetProfile } from "./profiles";

export { BLOCKHASH_VALIDITY_BLOCKS, DEFAULT_SLOT_MS, FINALIZATION_DEPTH_SLOTS } from "./local-chain";
export { parseFaultProfile, type FaultProfileInput } from "./fault-profile";

export interface StartLocalnetOptions {
  profile: LocalnetProfile;
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Snapshot folder; null keeps the chain in memory. */
  dataDir: string | null;
  /**
   * "real" (the default): slots on a clock, blockhashes that rotate every slot and expire after 150, and processed →
   * confirmed → finalized as on a real cluster. "instant", asked for explicitly: a slot per transaction, final at once.
   */
  timing?: "instant" | "real";
  /** Real timing's slot length, ms (default DEFAULT_SLOT_MS, Solana's 400). */
  slotMs?: number;
  /** Real timing's clock (default: the wall clock): a test that moves it decides when each slot passes. */
  clock?: ChainClock;
  /** A seeded fault profile for what arrives over RPC (see fault-profile.ts); none by default. */
  faults?: FaultProfileInput | null;
}

export interface Localnet {
  url: string;
  /**
   * A second door onto the same chain that the fault profile spares, for a test's own clients (an agent building its
   * payment) whose failures are not under test. The same as `url` without a fault profile.
   */
  faultFreeUrl: string;
  profile: LocalnetProfile;
  genesisHash: string;
  caip2: string;
  usdcMint: string;
  chain: LocalChain;
  fundAccount(
    owner: string,
    amounts: { usdcUnits?: bigint; lamports?: bigint },
  ): Promise<{
    ata: string;
    lamports: string;
    usdcUnits: string;
    /** The funding transaction, processed when this returns (as a faucet answers); `chain.confirmed` waits for more. */
    signature: string;
  }>;
  /** The owner's USDC (or `mint`) balance in atomic units. */
  usdcBalance(owner: string, mint?: string): Promise<bigint>;
  close(): Promise<void>;
}

/** Opens (or restores) the chain and serves it over JSON-RPC. */
export async function startLocalnet(opts: StartLocalnetOptions): Promise<Localnet> {
  if (opts.timing !== undefined && opts.timing !== "real" && opts.timing !== "instant")
    throw new Error(`timing must be "real" or "instant", got ${String(opts.timing)}`);
  const timing =
    opts.timing === "instant"
      ? { mode: "instant" as const }
      : { mode: "real" as const, slotMs: opts.slotMs ?? DEFAULT_SLOT_MS, ...(opts.clock ? { clock: opts.clock } : {}) };
  const chain = await LocalChain.open(
    opts.profile,
    opts.dataDir,
    timing,
    opts.faults ? new FaultDice(opts.faults) : null,
  );
  const host = opts.host ?? "127.0.0.1";
  const server = await serveRpc(chain, host, opts.port).catch((err: unknown) => {
    // A port already taken: nothing of this chain may keep running behind the error.
    chain.dispose();
    throw err;
  });
  const spared = chain.faults
    ? await serveRpc(chain, host, 0, { faults: false }).catch(async (err: unknown) => {
        await server.close();
        chain.dispose();
        throw err;
      })
    : null;
  return {
    url: server.url,
    faultFreeUrl: spared?.url ?? server.url,
    profile: opts.profile,
    genesisHash: chain.info.genesisHash,
    caip2: chain.info.caip2,
    usdcMint: chain.info.usdcMint,
    chain,
    fundAccount: (owner, amounts) => chain.fund(owner, amounts),
    usdcBalance: (owner, mint) => chain.tokenBalance(owner, mint),
    async close() {
      await Promise.all([server.close(), spared?.close()]);
      chain.dispose();
      chain.flush();
    },
  };
}
