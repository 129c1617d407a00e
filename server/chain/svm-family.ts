// The Solana family's adapter. The facilitator co-signs the payer's transaction as fee payer, so a settlement's id is
// the fee payer's signature over its message; Ed25519 signatures are deterministic, so the facilitator can compute
// the id its settlement had (or would have) and ask the chain for it. A transaction lands only before its blockhash
// expires, and the identical transaction can be broadcast again at no risk.
import "server-only";
import {
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  signBytes,
  type Signature,
} from "@solana/kit";
import type { PaymentPayload } from "@x402/core/types";
import type { Facilitator } from "../facilitator/create-facilitator";
import { awaitSolanaConfirmation, resendWire } from "../facilitator/confirm-with-rebroadcast";
import { CHAIN_FAMILY_FACTS } from "../verify/chain-family-facts";
import type { NetworkId } from "../verify";
import type { ChainFamilyAdapter, LandedSettlement } from "./chain-family";
import { solanaInflows } from "./chain-inflows";

/** The client's transaction and the fee payer's signature over its message; null when the payload carries none. */
async function coSign(facilitator: Facilitator, payload: PaymentPayload) {
  const wire = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof wire !== "string") return null;
  try {
    const tx = getTransactionDecoder().decode(Buffer.from(wire, "base64"));
    const signature = await signBytes(facilitator.signer.keyPair.privateKey, tx.messageBytes as unknown as Uint8Array);
    return { tx, signature };
  } catch {
    return null;
  }
}

/** The fully signed wire of a Solana payload's settlement: the client's transaction with the fee payer's signature. */
export async function solanaSettlementWire(facilitator: Facilitator, payload: PaymentPayload): Promise<string | null> {
  const signed = await coSign(facilitator, payload);
  if (!signed) return null;
  const { tx, signature } = signed;
  return getBase64EncodedWireTransaction({
    ...tx,
    signatures: { ...tx.signatures, [facilitator.signer.address]: signature },
  } as never);
}

function rpcOf(facilitator: Facilitator, network: NetworkId) {
  const rpc = facilitator.rpcs[network];
  if (!rpc) throw new Error(`no RPC for ${network}`);
  return rpc;
}

async function findSolanaSettlement(
  facilitator: Facilitator,
  network: NetworkId,
  payload: PaymentPayload,
): Promise<LandedSettlement> {
  const rpc = rpcOf(facilitator, network);
  const signed = await coSign(facilitator, payload);
  if (!signed) return { state: "absent" };
  const id = getBase58Decoder().decode(signed.signature);
  const { value } = await rpc.getSignatureStatuses([id as Signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  if (!status) return { state: "absent" };
  // SECURITY: a transaction seen only at `processed` can still be dropped with its fork; it is neither landed nor
  // failed until `confirmed`. Until then the chain cannot say, and the claim waits for a later retry.
  if (status.confirmationStatus !== "confirmed" && status.confirmationStatus !== "finalized") {
    throw new Error(`settlement ${id} is only ${status.confirmationStatus ?? "seen"}, not yet confirmed`);
  }
  return status.err === null ? { state: "landed", transaction: id } : { state: "failed" };
}

export const SVM_FAMILY: ChainFamilyAdapter & { readonly family: "svm" } = {
  ...CHAIN_FAMILY_FACTS.svm,
  async recheckBeforeSend(facilitator, payload, caip2) {
    // Settle verifies again before it sends; make that verification ask the chain instead of reusing verify's.
    const transaction = (payload.payload as { transaction?: unknown }).transaction;
    if (typeof transaction === "string") facilitator.forgetSimulation(transaction, caip2);
    return { proceed: true };
  },
  findLandedSettlement: findSolanaSettlement,
  async settlementExpired(facilitator, network, { blockhash }) {
    const rpc = rpcOf(facilitator, network);
    return blockhash
      ? !(await rpc.isBlockhashValid(blockhash as never, { commitment: "confirmed" }).send()).value
      : false;
  },
  rebroadcastGapMs: (gapMs) => gapMs,
  awaitOwnRelay: null,
  async rebroadcast(facilitator, network, { payload, transaction, blockhash }, waitMs) {
    const rpc = facilitator.rpcs[network];
    const wire = await solanaSettlementWire(facilitator, payload);
    if (rpc && wire && blockhash) {
      await resendWire(rpc, wire).catch(() => undefined);
      if (waitMs > 0)
        await awaitSolanaConfirmation(rpc, { signature: transaction, wire, blockhash }, waitMs, facilitator.clock);
    }
    return { landed: false, transaction };
  },
  readInflows: (facilitator, network, deposit, sinceSeconds) =>
    solanaInflows(rpcOf(facilitator, network), deposit, facilitator.networks.get(network).usdcAsset, sinceSeconds),
  // A confirmed Solana transaction is not rolled back: only EVM payments are checked for reorgs.
  findReorgedPayments: async () => [],
};
