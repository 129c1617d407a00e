// What the chain says the deposit addresses received: every USDC transfer into a deposit address on one
// network, read from the chain alone: Solana through getSignaturesForAddress on the deposit's USDC account plus
// getTransaction; EVM through the USDC contract's Transfer logs to the deposit address.
import "server-only";
import { address, type Rpc, type Signature, type SolanaRpcApi } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { parseAbiItem, type PublicClient } from "viem";

export interface Inflow {
  transaction: string;
  payTo: string;
  units: bigint;
  /** Unix seconds, when the chain says. */
  blockTime: number | null;
}

const PAGE = 1_000;
const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/** Incoming USDC transfers to `owner` on a Solana network, newest first, back to `sinceSeconds`. */
export async function solanaInflows(
  rpc: Rpc<SolanaRpcApi>,
  owner: string,
  mint: string,
  sinceSeconds: number | null,
): Promise<Inflow[]> {
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const out: Inflow[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await rpc
      .getSignaturesForAddress(ata, { limit: PAGE, commitment: "confirmed", ...(before ? { before } : {}) })
      .send();
    for (const entry of page) {
      const blockTime = entry.blockTime === null ? null : Number(entry.blockTime);
      if (sinceSeconds !== null && blockTime !== null && blockTime < sinceSeconds) return out;
      if (entry.err !== null) continue;
      const tx = await rpc
        .getTransaction(entry.signature, {
          encoding: "jsonParsed",
          commitment: "confirmed",
          maxSupportedTransactionVersion: 0,
        })
        .send();
      const units = tx ? ownerDelta(tx.meta as unknown as TokenMeta | null, owner, mint) : 0n;
      if (units > 0n) out.push({ transaction: entry.signature, payTo: owner, units, blockTime });
    }
    if (page.length < PAGE) return out;
    before = page[page.length - 1]!.signature;
  }
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}
interface TokenMeta {
  err: unknown;
  preTokenBalances?: TokenBalance[] | null;
  postTokenBalances?: TokenBalance[] | null;
}

/** How much `owner`'s accounts of `mint` rose in one transaction. */
function ownerDelta(meta: TokenMeta | null, owner: string, mint: string): bigint {
  if (!meta || meta.err !== null) return 0n;
  let delta = 0n;
  for (const post of meta.postTokenBalances ?? []) {
    if (post.mint !== mint || post.owner !== owner) continue;
    const pre = (meta.preTokenBalances ?? []).find((b) => b.accountIndex === post.accountIndex);
    delta += BigInt(post.uiTokenAmount.amount) - BigInt(pre?.uiTokenAmount.amount ?? "0");
  }
  return delta;
}

/** Incoming USDC Transfer logs to `owner` on an EVM network, back to `sinceSeconds` (scanning from `fromBlock`). */
export async function evmInflows(
  client: PublicClient,
  owner: `0x${string}`,
  usdc: `0x${string}`,
  sinceSeconds: number | null,
  fromBlock = 0n,
): Promise<Inflow[]> {
  const logs = await client.getLogs({
    address: usdc,
    event: TRANSFER,
    args: { to: owner },
    fromBlock,
    toBlock: "latest",
  });
  const times = new Map<bigint, number>();
  const out: Inflow[] = [];
  for (const log of logs) {
    if (log.removed || log.blockNumber === null || log.transactionHash === null) continue;
    let time = times.get(log.blockNumber);
    if (time === undefined) {
      time = Number((await client.getBlock({ blockNumber: log.blockNumber })).timestamp);
      times.set(log.blockNumber, time);
    }
    if (sinceSeconds !== null && time < sinceSeconds) continue;
    out.push({
      transaction: log.transactionHash,
      payTo: owner.toLowerCase(),
      units: log.args.value ?? 0n,
      blockTime: time,
    });
  }
  return out;
}
