// After a crash between claiming a payment and recording its settlement, the chain is the only witness of whether the
// money moved. These lookups answer it from the payment payload itself, without trusting any stored state, through
// the network's chain-family adapter (server/chain: Solana computes its settlement's id, EVM reads the authorization).
import "server-only";
import type { PaymentPayload } from "@x402/core/types";
import type { Facilitator } from "../facilitator/create-facilitator";
import type { NetworkId } from "../verify";
import { blockhashOfWire } from "../facilitator/confirm-with-rebroadcast";
import type { LandedSettlement, PendingSettlementState, SettlementExpiry } from "../chain/chain-family";
import { familyAdapter } from "../chain/family-adapter";

export type { LandedSettlement, PendingSettlementState } from "../chain/chain-family";
export { solanaSettlementWire } from "../chain/svm-family";

/** Whether the settlement of `payload` is on chain. Throws when the chain cannot be read (try again later). */
export async function findLandedSettlement(
  facilitator: Facilitator,
  network: NetworkId,
  payload: PaymentPayload,
): Promise<LandedSettlement> {
  return familyAdapter(facilitator.networks.get(network)).findLandedSettlement(facilitator, network, payload);
}

/** What decides when a payload's settlement can no longer land: a Solana blockhash, or an authorization's validBefore. */
export function settlementExpiry(payload: PaymentPayload): SettlementExpiry {
  const inner = payload.payload as { transaction?: unknown; authorization?: { validBefore?: unknown } };
  const blockhash = typeof inner.transaction === "string" ? blockhashOfWire(inner.transaction) : null;
  const before = inner.authorization?.validBefore;
  const validBefore = typeof before === "string" && /^\d{1,15}$/.test(before) ? new Date(Number(before) * 1000) : null;
  return { blockhash, validBefore };
}

/**
 * Whether a broadcast settlement of `payload` landed, failed, can still land (`absent`), or never can (`expired`).
 * What decides expiry is read FIRST and the settlement after, so one that lands between the two reads is seen as
 * landed, never as expired. Throws when the chain cannot be read.
 */
export async function findPendingSettlement(
  facilitator: Facilitator,
  network: NetworkId,
  payload: PaymentPayload,
): Promise<PendingSettlementState> {
  const adapter = familyAdapter(facilitator.networks.get(network));
  const expired = await adapter.settlementExpired(facilitator, network, settlementExpiry(payload));
  const landed = await adapter.findLandedSettlement(facilitator, network, payload);
  return landed.state === "absent" && expired ? { state: "expired" } : landed;
}
