// The facilitator's gas money on each network, in the network's native currency, with the warn and alert levels its
// row sets (network-registry.ts).
import "server-only";
import { address } from "@solana/kit";
import { z } from "zod";
import type { Facilitator } from "../facilitator/create-facilitator";
import { nativeAmountUnits, type NetworkRow } from "../verify";

type FeePayerLevel = "ok" | "warn" | "alert" | "unreachable";

export interface FeePayerHealth {
  network: string;
  label: string;
  address: string;
  /** In `unit`; null when the RPC could not be read. */
  balance: number | null;
  /** The native currency's symbol (SOL, ETH). */
  unit: string;
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
  unit: z.string(),
  warnBelow: z.number(),
  alertBelow: z.number(),
  level: z.enum(["ok", "warn", "alert", "unreachable"]),
}) satisfies z.ZodType<FeePayerHealth>;

const levelOf = (amount: bigint, warn: bigint, alert: bigint): FeePayerLevel =>
  amount < alert ? "alert" : amount < warn ? "warn" : "ok";

/** The row's fee payer levels and its balance (atomic units) as the report shows them, in the native currency. */
function levels(row: NetworkRow) {
  const { decimals, feePayerWarnBelow, feePayerAlertBelow, symbol } = row.nativeCurrency;
  // The registry checked both levels when it was built.
  const warn = nativeAmountUnits(feePayerWarnBelow, decimals)!;
  const alert = nativeAmountUnits(feePayerAlertBelow, decimals)!;
  return {
    fields: {
      network: row.caip2,
      label: row.label,
      unit: symbol,
      warnBelow: Number(feePayerWarnBelow),
      alertBelow: Number(feePayerAlertBelow),
    },
    // For people: a float is fine here, no money moves by it.
    read: (units: bigint) => ({ balance: Number(units) / 10 ** decimals, level: levelOf(units, warn, alert) }),
  };
}

/** The fee payer's balance and level per configured network. */
export async function readFeePayerHealth(facilitator: Facilitator): Promise<FeePayerHealth[]> {
  const networks = facilitator.networks;
  const solana = (Object.keys(facilitator.rpcs) as string[]).map(async (id): Promise<FeePayerHealth> => {
    const { fields, read } = levels(networks.get(id));
    const base = { ...fields, address: facilitator.address };
    try {
      const { value } = await facilitator.rpcs[id]!.getBalance(address(facilitator.address), {
        commitment: "confirmed",
      }).send();
      return { ...base, ...read(BigInt(value)) };
    } catch {
      return { ...base, balance: null, level: "unreachable" };
    }
  });
  const evm = facilitator.evm;
  const base = Object.keys(evm?.clients ?? {}).map(async (id): Promise<FeePayerHealth> => {
    const { fields, read } = levels(networks.get(id));
    const info = { ...fields, address: evm!.address };
    try {
      return { ...info, ...read(await evm!.clients[id]!.getBalance({ address: evm!.address })) };
    } catch {
      return { ...info, balance: null, level: "unreachable" };
    }
  });
  return Promise.all([...solana, ...base]);
}
