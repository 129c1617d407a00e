// `signet localnet fund <pubkey|0x…> [--usdc N] [--sol N] [--eth N]`: dev-only funding on the running local chains
// (never production). A base58 key is funded on the local Solana chain (USDC account created, minted, airdropped);
// a 0x address on the local anvil chain playing Base Sepolia (test USDC minted, ETH added).
import { parseArgs } from "node:util";
import { isBase58PublicKey, parseUsdcToUnits } from "../../server/verify";
import { cliConfig, UsageError } from "../cli-support";
import { LOCALNET_USAGE } from "./usage";
import { fundEvmAccount } from "../../devtools/anvil";

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Runs the command; returns the exit code. */
export async function runLocalnet(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "fund") throw new UsageError(`usage: ${LOCALNET_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { usdc: { type: "string", default: "10" }, sol: { type: "string", default: "0" }, eth: { type: "string", default: "0" }, rpc: { type: "string" } },
  });
  const owner = positionals[0];
  if (owner && /^0x[0-9a-fA-F]{40}$/.test(owner)) return fundEvm(owner as `0x${string}`, values);
  if (!owner || !isBase58PublicKey(owner)) throw new UsageError(`a base58 public key or a 0x address is required\nusage: ${LOCALNET_USAGE}`);
  const usdcUnits = parseUsdcToUnits(values.usdc);
  const solUnits = parseUsdcToUnits(values.sol); // SOL has 9 decimals: parse as a decimal, then scale
  if (usdcUnits === null) throw new UsageError("--usdc must be a non-negative amount with at most 6 decimals");
  if (solUnits === null) throw new UsageError("--sol must be a non-negative amount with at most 6 decimals");
  const lamports = (solUnits * LAMPORTS_PER_SOL) / 1_000_000n;
  const rpc = values.rpc ?? (await cliConfig()).solanaRpcUrl.devnet;
  if (!rpc) throw new UsageError("no local chain RPC known; pass --rpc");
  const res = await fetch(rpc, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "localnet_fund", params: [owner, { usdcUnits: usdcUnits.toString(), lamports: lamports.toString() }] }),
  }).catch(() => {
    throw new UsageError(`the local chain at ${rpc} is not reachable (is npm run dev running?)`);
  });
  const body = (await res.json().catch(() => null)) as { result?: unknown; error?: { message?: string } } | null;
  if (!body || body.error) throw new UsageError(`funding failed: ${body?.error?.message ?? `HTTP ${res.status}`} (only the local chain can fund)`);
  process.stdout.write(`${JSON.stringify(body.result)}\n`);
  return 0;
}

async function fundEvm(owner: `0x${string}`, values: { usdc: string; eth: string; rpc?: string | undefined }): Promise<number> {
  const usdcUnits = parseUsdcToUnits(values.usdc);
  const ethMicro = parseUsdcToUnits(values.eth); // ETH has 18 decimals: parse as a 6-decimal amount, then scale
  if (usdcUnits === null) throw new UsageError("--usdc must be a non-negative amount with at most 6 decimals");
  if (ethMicro === null) throw new UsageError("--eth must be a non-negative amount with at most 6 decimals");
  const rpc = values.rpc ?? (await cliConfig()).evmRpcUrl.baseSepolia;
  if (!rpc) throw new UsageError("no local anvil RPC known; pass --rpc");
  try {
    await fundEvmAccount(rpc, owner, { usdcUnits, wei: ethMicro * 1_000_000_000_000n });
  } catch (err) {
    throw new UsageError(`funding ${owner} at ${rpc} failed (is npm run dev running? only a local anvil chain can fund): ${(err as Error).message.split("\n")[0]}`);
  }
  process.stdout.write(`${JSON.stringify({ owner, usdcUnits: usdcUnits.toString(), wei: (ethMicro * 1_000_000_000_000n).toString() })}\n`);
  return 0;
}
