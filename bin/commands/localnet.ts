// `signet localnet fund <pubkey> [--usdc N] [--sol N]`: dev-only funding on the running local chain (it is never
// production): creates the owner's USDC account and mints / airdrops to it.
import { parseArgs } from "node:util";
import { config } from "../../server/env";
import { isBase58PublicKey, parseUsdcToUnits } from "../../server/verify";
import { UsageError } from "../cli-support";

export const LOCALNET_USAGE = "signet localnet fund <pubkey> [--usdc N] [--sol N] [--rpc URL]";
const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Runs the command; returns the exit code. */
export async function runLocalnet(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "fund") throw new UsageError(`usage: ${LOCALNET_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { usdc: { type: "string", default: "10" }, sol: { type: "string", default: "0" }, rpc: { type: "string" } },
  });
  const owner = positionals[0];
  if (!owner || !isBase58PublicKey(owner)) throw new UsageError(`a base58 public key is required\nusage: ${LOCALNET_USAGE}`);
  const usdcUnits = parseUsdcToUnits(values.usdc);
  const solUnits = parseUsdcToUnits(values.sol); // SOL has 9 decimals: parse as a decimal, then scale
  if (usdcUnits === null) throw new UsageError("--usdc must be a non-negative amount with at most 6 decimals");
  if (solUnits === null) throw new UsageError("--sol must be a non-negative amount with at most 6 decimals");
  const lamports = (solUnits * LAMPORTS_PER_SOL) / 1_000_000n;
  const rpc = values.rpc ?? config().solanaRpcUrl.devnet;
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
