// The local Solana chain `npm run dev` and the tests run: a LocalChain behind its JSON-RPC server.
import "server-only";
import { LocalChain } from "./local-chain";
import { serveRpc } from "./rpc-server";
import type { LocalnetProfile } from "./profiles";

export { PROFILES } from "./profiles";
export type { LocalnetProfile } from "./profiles";
export { LocalChain } from "./local-chain";

export interface StartLocalnetOptions {
  profile: LocalnetProfile;
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Snapshot folder; null keeps the chain in memory. */
  dataDir: string | null;
}

export interface Localnet {
  url: string;
  profile: LocalnetProfile;
  genesisHash: string;
  caip2: string;
  usdcMint: string;
  chain: LocalChain;
  fundAccount(owner: string, amounts: { usdcUnits?: bigint; lamports?: bigint }): Promise<{ ata: string; lamports: string; usdcUnits: string }>;
  /** The owner's USDC (or `mint`) balance in atomic units. */
  usdcBalance(owner: string, mint?: string): Promise<bigint>;
  close(): Promise<void>;
}

/** Opens (or restores) the chain and serves it over JSON-RPC. */
export async function startLocalnet(opts: StartLocalnetOptions): Promise<Localnet> {
  const chain = await LocalChain.open(opts.profile, opts.dataDir);
  const server = await serveRpc(chain, opts.host ?? "127.0.0.1", opts.port);
  return {
    url: server.url,
    profile: opts.profile,
    genesisHash: chain.info.genesisHash,
    caip2: chain.info.caip2,
    usdcMint: chain.info.usdcMint,
    chain,
    fundAccount: (owner, amounts) => chain.fund(owner, amounts),
    usdcBalance: (owner, mint) => chain.tokenBalance(owner, mint),
    async close() {
      await server.close();
      chain.flush();
    },
  };
}
