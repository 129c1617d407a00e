// The facilitator's gas money on each network. Solana: warn under 0.5 SOL (the recommended funding), alert under
// 0.1 SOL. Base: set from what one EIP-3009 settlement costs (~80k gas, well under 0.0001 ETH at Base's fees): warn
// under 0.005 ETH, alert under 0.001 ETH.
import "server-only";
import { address } from "@solana/kit";
import { z } from "zod";
import type { Facilitator } from "../facilitator/create-facilitator";
import { NETWORKS, type NetworkId } from "../chain/networks";

const WARN_BELOW_LAMPORTS = 500_000_000n;
const ALERT_BELOW_LAMPORTS = 100_000_000n;
const WARN_BELOW_WEI = 5_000_000_000_000_000n;
const ALERT_BELOW_WEI = 1_000_000_000_000_000n;

type FeePayerLevel = "ok" | "warn" | "alert" | "unreachable";

export interface FeePayerHealth {
  network: string;
  label: string;
  address: string;
  /** In `unit`; null when the RPC could not be read. */
  balance: number | null;
  unit: "SOL" | "ETH";
  warnBelow: number;
  alertBelow: number;
  level: FeePayerLevel;
}

/** FeePayerHealth as its readers check it: the dashboard's procedure's output and `signet doctor`'s health body. */
export const feePayerHealthSchema = z.object({
  network: z.string(),
  label: z.string(),
  address: z.string(),
  balance: z.number().nullable(),
  unit: z.enum(["SOL", "ETH"]),
  warnBelow: z.number(),
  alertBelow: z.number(),
  level: z.enum(["ok", "warn", "alert", "unreachable"]),
}) satisfies z.ZodType<FeePayerHealth>;

const levelOf = (amount: bigint, warn: bigint, alert: bigint): FeePayerLevel => (amount < alert ? "alert" : amount < warn ? "warn" : "ok");

/** The fee payer's balance and level per configured network. */
export async function readFeePayerHealth(facilitator: Facilitator): Promise<FeePayerHealth[]> {
  const solana = (Object.keys(facilitator.rpcs) as NetworkId[]).map(async (id): Promise<FeePayerHealth> => {
    const base = { network: NETWORKS[id].caip2, label: NETWORKS[id].label, address: facilitator.address, unit: "SOL" as const, warnBelow: 0.5, alertBelow: 0.1 };
    try {
      const { value } = await facilitator.rpcs[id]!.getBalance(address(facilitator.address), { commitment: "confirmed" }).send();
      const lamports = BigInt(value);
      return { ...base, balance: Number(lamports) / 1e9, level: levelOf(lamports, WARN_BELOW_LAMPORTS, ALERT_BELOW_LAMPORTS) };
    } catch {
      return { ...base, balance: null, level: "unreachable" };
    }
  });
  const evm = facilitator.evm;
  const base = (Object.keys(evm?.clients ?? {}) as NetworkId[]).map(async (id): Promise<FeePayerHealth> => {
    const info = { network: NETWORKS[id].caip2, label: NETWORKS[id].label, address: evm!.address, unit: "ETH" as const, warnBelow: 0.005, alertBelow: 0.001 };
    try {
      const wei = await evm!.clients[id]!.getBalance({ address: evm!.address });
      return { ...info, balance: Number(wei) / 1e18, level: levelOf(wei, WARN_BELOW_WEI, ALERT_BELOW_WEI) };
    } catch {
      return { ...info, balance: null, level: "unreachable" };
    }
  });
  return Promise.all([...solana, ...base]);
}
