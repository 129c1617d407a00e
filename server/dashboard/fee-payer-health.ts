// The facilitator's SOL on each network (issue #5): warn under the runbook's 0.5 SOL funding advice, alert under its
// 0.1 SOL alert level (the seed's §8).
import { address } from "@solana/kit";
import type { Facilitator } from "../facilitator/create-facilitator";
import { NETWORKS, type NetworkId } from "../chain/networks";

export const WARN_BELOW_LAMPORTS = 500_000_000n;
export const ALERT_BELOW_LAMPORTS = 100_000_000n;

export type FeePayerLevel = "ok" | "warn" | "alert" | "unreachable";

/** The fee payer's balance and level per configured network. */
export async function readFeePayerHealth(facilitator: Facilitator) {
  return Promise.all(
    (Object.keys(facilitator.rpcs) as NetworkId[]).map(async (id) => {
      try {
        const { value } = await facilitator.rpcs[id]!.getBalance(address(facilitator.address), { commitment: "confirmed" }).send();
        const lamports = BigInt(value);
        const level: FeePayerLevel = lamports < ALERT_BELOW_LAMPORTS ? "alert" : lamports < WARN_BELOW_LAMPORTS ? "warn" : "ok";
        return { network: NETWORKS[id].caip2, label: NETWORKS[id].label, address: facilitator.address, sol: Number(lamports) / 1e9, level };
      } catch {
        return { network: NETWORKS[id].caip2, label: NETWORKS[id].label, address: facilitator.address, sol: null, level: "unreachable" as FeePayerLevel };
      }
    }),
  );
}
